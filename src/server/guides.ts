import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { marked } from 'marked';
import { AppError } from '../lib/errors.ts';

// The guides in docs/ served beside the API reference, so everything a partner's engineer needs is
// reachable from /docs (issue 17): /docs/guides lists them, /docs/guides/{name} renders one. They are
// read once at start and each rendered once, when first asked for (rendering them all was about a
// tenth of the start's CPU), never from a request's path: the name must be one of the files found,
// so no path reaches the file system.

export interface Guide {
  name: string;
  title: string;
  html: string;
}

const PAGE = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Tableside</title>
<style>body{font:16px/1.55 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
pre{background:#f4f4f4;padding:.8rem;overflow:auto}code{font-size:.92em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}nav a{margin-right:1rem}</style></head>
<body><nav><a href="/docs">API reference</a><a href="/docs/guides">Guides</a></nav>${body}</body></html>`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Links to files outside docs/ (`../bench/README.md`) have no page here: served, they answered 404
 * (issue 30). They become the file's path in the repository, as text.
 */
function outsideLinksAsText(markdown: string): string {
  return markdown.replace(/\[([^\]]+)\]\(\.\.\/([^)#\s]+)(#[^)\s]*)?\)/g, (_m, text: string, path: string) => {
    const named = text.replace(/`/g, '') === path;
    return named ? `\`${path}\` (in the repository)` : `${text} (\`${path}\` in the repository)`;
  });
}

/** Every `*.md` in `dir`, rendered; links between guides (`payments.md`) point at their pages. */
export function loadGuides(dir: string): Guide[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.md')).sort();
  } catch {
    return [];
  }
  return files.map((file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    const title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim() ?? file;
    let html: string | undefined;
    const render = () => {
      const linked = outsideLinksAsText(text.replace(/\]\((?:\.\/)?([a-z0-9-]+)\.md(#[^)]*)?\)/g, (_m, name: string, hash = '') => `](/docs/guides/${name}${hash})`));
      return marked.parse(linked, { async: false }) as string;
    };
    return {
      name: basename(file, '.md'),
      title,
      get html() {
        return (html ??= render());
      },
    };
  });
}

/** The guides as a Markdown list, for the OpenAPI document's description (Swagger UI renders it). */
export function guidesMarkdown(guides: readonly Guide[]): string {
  return guides.map((g) => `- [${g.title}](/docs/guides/${g.name})`).join('\n');
}

export function registerGuides(app: FastifyInstance, guides: readonly Guide[]): void {
  const byName = new Map(guides.map((g) => [g.name, g]));
  // Made at the first request, as the guides' pages are: marked's first use is a few ms of a start.
  let index: string | undefined;
  const indexPage = () => PAGE('Guides', `<h1>Guides</h1><ul>${guides.map((g) => `<li><a href="/docs/guides/${g.name}">${marked.parseInline(escapeHtml(g.title), { async: false }) as string}</a></li>`).join('')}</ul>`);
  app.get('/docs/guides', { schema: { hide: true } }, async (_request, reply) => reply.type('text/html; charset=utf-8').send((index ??= indexPage())));
  app.get<{ Params: { name: string } }>('/docs/guides/:name', { schema: { hide: true } }, async (request, reply) => {
    const guide = byName.get(request.params.name);
    if (!guide) throw new AppError('not_found', 'There is no guide of that name; /docs/guides lists them.');
    return reply.type('text/html; charset=utf-8').send(PAGE(guide.title.replace(/`/g, ''), guide.html));
  });
}
