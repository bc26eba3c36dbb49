import { escapeHtml } from '../text/escape';

/**
 * The page at `/`: what this service is and where to go from here (the API's description, the demo
 * feed, the documentation), until the web app takes the address. Pure: the handler gives the links.
 */
export interface LandingPageLinks {
  readonly openApi: string;
  /** The demo feed's page, when the stack made one (`npm start` does; a deployment has none). */
  readonly demoFeed: string | null;
}

/** Where the documentation lives: in the project, beside its README (no copy is served). */
const DOCS = [
  ['README.md', 'what Gleaner is and a five-minute walk-through'],
  ['docs/contract.md', 'the API: saving pages and reading feeds'],
  ['docs/cli.md', 'the gleaner command: users, tokens, notes, feeds, import and export'],
  ['docs/feeds.md', 'published feeds: JSON, RSS, Atom, JSON Feed and their page'],
  ['docs/extension.md', 'the browser extension'],
  ['docs/deploying.md', 'deploying to AWS'],
] as const;

export function renderLandingPage(links: LandingPageLinks): string {
  const item = (href: string, label: string, what: string) =>
    `<li><a href="${escapeHtml(href)}">${escapeHtml(label)}</a>: ${escapeHtml(what)}</li>`;
  const demo = links.demoFeed
    ? item(links.demoFeed, 'The demo feed', 'the pages the demo user saved with #reading')
    : '<li>Feeds: create one with <code>gleaner feeds create</code>; it prints its page address.</li>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gleaner</title>
<meta name="description" content="Gleaner saves the pages you read as notes and publishes feeds of them.">
<style>:root{color-scheme:light dark}body{max-width:42rem;margin:0 auto;padding:1rem;font:1.0625rem/1.6 system-ui,sans-serif}</style>
</head>
<body>
<main>
<h1>Gleaner</h1>
<p>Gleaner saves the pages you read as notes, from a browser extension or with one API call, and publishes tag-filtered feeds of them.</p>
<ul>
${item(links.openApi, 'The API description', 'OpenAPI 3.1, the save route and the feed routes')}
${demo}
</ul>
<h2>Documentation</h2>
<p>In the project, beside its README:</p>
<ul>
${DOCS.map(([file, what]) => `<li><code>${file}</code>: ${escapeHtml(what)}</li>`).join('\n')}
</ul>
</main>
</body>
</html>
`;
}
