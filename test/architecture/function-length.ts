import ts from 'typescript';

// The length rule (STYLE: functions short and at one level of abstraction; issue 25), as a function
// of a source text, so the test can run it on the repository and on made-up sources.
//
// A function's own lines are the lines it spans minus the lines of the functions nested directly
// inside it: each of those is measured on its own, so a short function that declares a long
// callback is short, and the callback answers for itself. Function-like: function declarations and
// expressions, arrow functions, methods, constructors, get and set accessors.
//
// Exempt: a route plugin that only lists routes, i.e. a function in a `*.routes.ts` file whose
// statements are all route registrations on its first parameter (`app.get(…)`, `app.post(…)`, …).
// Each registration is a schema and one service call (STYLE 2); a long list of them reads as the
// API's table of contents, and splitting it would only scatter that.

export const MAX_OWN_LINES = 80;

export interface FunctionLength {
  /** The function's name, or the variable or property it is assigned to; `(anonymous)` otherwise. */
  name: string;
  /** 1-based line where it starts. */
  line: number;
  ownLines: number;
  /** A route plugin that only lists routes (exempt). */
  routeList: boolean;
}

const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'all', 'route']);

type FunctionLike =
  | ts.FunctionDeclaration | ts.FunctionExpression | ts.ArrowFunction | ts.MethodDeclaration
  | ts.ConstructorDeclaration | ts.GetAccessorDeclaration | ts.SetAccessorDeclaration;

function isFunctionLike(node: ts.Node): node is FunctionLike {
  return ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node)
    || ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node);
}

/** The function-like nodes under `node` that no other function-like node under it encloses. */
function directlyNested(node: ts.Node): FunctionLike[] {
  const found: FunctionLike[] = [];
  const visit = (child: ts.Node) => {
    if (isFunctionLike(child)) found.push(child);
    else ts.forEachChild(child, visit);
  };
  ts.forEachChild(node, visit);
  return found;
}

function nameOf(fn: FunctionLike, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(fn)) return 'constructor';
  if (fn.name) return fn.name.getText(source);
  const parent = fn.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(source);
  return '(anonymous)';
}

/** `app.get(…)` and the like, on the plugin's own first parameter. */
function isRouteRegistration(statement: ts.Statement, app: string): boolean {
  if (!ts.isExpressionStatement(statement) || !ts.isCallExpression(statement.expression)) return false;
  const callee = statement.expression.expression;
  return ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === app && ROUTE_METHODS.has(callee.name.text);
}

function isRouteList(fn: FunctionLike, file: string): boolean {
  if (!file.endsWith('.routes.ts') || !fn.body || !ts.isBlock(fn.body)) return false;
  const first = fn.parameters[0];
  if (!first || !ts.isIdentifier(first.name)) return false;
  const app = first.name.text;
  const statements = fn.body.statements;
  return statements.length > 0 && statements.every((s) => isRouteRegistration(s, app));
}

/** Every function of a source, with its own lines. `file` is the file's path (its name decides the route-plugin exemption). */
export function measureFunctions(file: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  const span = (node: ts.Node) => lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
  const out: FunctionLength[] = [];
  const visit = (node: ts.Node) => {
    if (isFunctionLike(node)) {
      const nested = directlyNested(node).reduce((sum, inner) => sum + span(inner), 0);
      out.push({ name: nameOf(node, source), line: lineOf(node.getStart(source)) + 1, ownLines: span(node) - nested, routeList: isRouteList(node, file) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The functions of a source over `max` lines of their own, route lists aside. */
export function longFunctions(file: string, text: string, max = MAX_OWN_LINES): FunctionLength[] {
  return measureFunctions(file, text).filter((f) => f.ownLines > max && !f.routeList);
}
