// The onboarding page a restaurant opens from its link (DESIGN 6.5): plain server-rendered HTML,
// readable on a phone, usable with a keyboard and a screen reader, and complete without
// JavaScript (the form posts to the same URL).

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export type PageState =
  | { kind: 'form'; venueName: string; posName: string; action: string; error?: string; posVenueId?: string }
  | { kind: 'connected'; venueName: string; posName: string; tableCount: number | null }
  | { kind: 'invalid' };

const STYLE = `
  :root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  body { margin: 0; padding: 2rem 1rem; line-height: 1.5; }
  main { max-width: 32rem; margin: 0 auto; }
  h1 { font-size: 1.5rem; margin: 0 0 .5rem; }
  p.lead { margin-top: 0; }
  label { display: block; font-weight: 600; margin: 1.25rem 0 .25rem; }
  .hint { display: block; font-weight: 400; font-size: .9rem; opacity: .8; }
  input[type=text] { width: 100%; box-sizing: border-box; font-size: 1rem; padding: .6rem; border: 2px solid #767676; border-radius: 6px; }
  input[type=text]:focus { outline: 3px solid #1a73e8; outline-offset: 2px; }
  button { margin-top: 1rem; font-size: 1rem; padding: .7rem 1.2rem; border: 0; border-radius: 6px; background: #0b57d0; color: #fff; cursor: pointer; }
  button:focus-visible { outline: 3px solid #1a73e8; outline-offset: 2px; }
  .error { border-left: 4px solid #b3261e; padding: .5rem .75rem; background: rgba(179, 38, 30, .08); }
  .ok { border-left: 4px solid #146c2e; padding: .5rem .75rem; background: rgba(20, 108, 46, .08); }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .25rem 1rem; }
  dt { font-weight: 600; }
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escape(title)} · Tableside</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

export function renderPage(state: PageState): string {
  if (state.kind === 'invalid') {
    return layout(
      'Link not valid',
      `<h1>This link is not valid</h1>
<p>The onboarding link is incomplete or has been replaced. Ask the company that sent it for a new link.</p>`,
    );
  }
  const details = `<dl>
  <dt>Venue</dt><dd>${escape(state.venueName)}</dd>
  <dt>Point of sale</dt><dd>${escape(state.posName)}</dd>
</dl>`;
  if (state.kind === 'connected') {
    return layout(
      'Connected',
      `<h1>Your point of sale is connected</h1>
${details}
<p class="ok" role="status">Pay at table is now active for ${escape(state.venueName)}.${
        state.tableCount === null ? '' : ` ${state.tableCount} table${state.tableCount === 1 ? ' was' : 's were'} imported from your POS.`
      }</p>
<p>You can close this page.</p>`,
    );
  }
  const error = state.error
    ? `<div class="error" role="alert" id="form-error"><strong>That did not work.</strong> ${escape(state.error)}</div>`
    : '';
  return layout(
    `Connect ${state.venueName}`,
    `<h1>Connect your point of sale</h1>
<p class="lead">To let guests pay at the table, connect ${escape(state.venueName)} to its location in your POS account.</p>
${details}
${error}
<form method="post" action="${escape(state.action)}">
  <label for="posVenueId">POS location id
    <span class="hint" id="posVenueId-hint">The id of this restaurant's location in your ${escape(state.posName)} account, as shown in its settings.</span>
  </label>
  <input type="text" id="posVenueId" name="posVenueId" required maxlength="200" autocomplete="off"
    aria-describedby="posVenueId-hint${state.error ? ' form-error' : ''}"${state.error ? ' aria-invalid="true"' : ''}
    value="${escape(state.posVenueId ?? '')}">
  <button type="submit">Connect</button>
</form>`,
  );
}
