import { defaultPathSerializer } from 'openapi-fetch';

/**
 * openapi-fetch's default path serializer with each template split once: a `{name}` with a string
 * or number value becomes that value percent-encoded (as the default does); any other template or
 * value (label, matrix or exploded styles, arrays, objects, a missing value) goes to the default.
 */
export function templatePathSerializer(): (pathname: string, pathParams: Record<string, unknown>) => string {
  const templates = new Map<string, string[] | null>();
  return (pathname, pathParams) => {
    let parts = templates.get(pathname);
    if (parts === undefined) {
      const split = pathname.split(/\{([^{}]+)\}/);
      parts = split.some((part, i) => i % 2 === 1 && /^[.;]|\*$/.test(part)) ? null : split;
      // Bounded: a template per documented path (and per base URL a call overrides).
      if (templates.size < 1000) templates.set(pathname, parts);
    }
    if (parts === null) return defaultPathSerializer(pathname, pathParams);
    let url = parts[0]!;
    for (let i = 1; i < parts.length; i += 2) {
      const value = pathParams[parts[i]!];
      if (typeof value !== 'string' && typeof value !== 'number') return defaultPathSerializer(pathname, pathParams);
      url += encodeURIComponent(value) + parts[i + 1]!;
    }
    return url;
  };
}
