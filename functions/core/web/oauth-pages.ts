/**
 * The pages of the authorization server: the consent page a client's authorization request shows,
 * and Settings › Connected apps. Pure rendering; every value from outside goes through `escapeHtml`.
 */

import { SCOPES, type Scope } from '../identity/principal';
import { escapeHtml } from '../text/escape';
import { copyField, csrfField, postButton, renderPage, settingsNavigation } from './layout';
import { webPaths } from './paths';

/** What a scope allows, as people read it; OpenID's own scopes too. */
function scopeMeaning(scope: string): string {
  if (scope in SCOPES) return SCOPES[scope as Scope];
  const openid: Record<string, string> = {
    openid: 'Know your Gleaner account id',
    offline_access: 'Stay connected when you are not using it (until you revoke it)',
  };
  return openid[scope] ?? scope;
}

export interface ConsentView {
  readonly uid: string;
  readonly clientName: string;
  /** Where the client sends you back (its redirect URI's origin), so a look-alike name is told apart. */
  readonly redirectOrigin: string;
  readonly scopes: readonly string[];
  readonly csrfToken: string;
}

export function consentPage(view: ConsentView): string {
  const action = (path: string) => `/oauth/interaction/${encodeURIComponent(view.uid)}/${path}`;
  return renderPage({
    title: `Allow ${view.clientName}?`,
    signedIn: { csrfToken: view.csrfToken },
    body: `<h1>Allow ${escapeHtml(view.clientName)} to use your Gleaner account?</h1>
<p>${escapeHtml(view.clientName)} (which will send you back to <strong>${escapeHtml(view.redirectOrigin)}</strong>) asks to:</p>
<dl class="scopes">${view.scopes.map((scope) => `<dt>${escapeHtml(scope)}</dt><dd>${escapeHtml(scopeMeaning(scope))}</dd>`).join('')}</dl>
<p class="hint">You can disconnect it at any time in Settings › <a href="${webPaths.connectedApps}">Connected apps</a>.</p>
<form method="post" action="${escapeHtml(action('confirm'))}" class="inline-form">${csrfField(view.csrfToken)}<button type="submit">Allow</button></form>
<form method="post" action="${escapeHtml(action('abort'))}" class="inline-form">${csrfField(view.csrfToken)}<button type="submit" class="secondary">Deny</button></form>`,
  });
}

export interface ConnectedApp {
  readonly grantId: string;
  readonly clientName: string;
  readonly scopes: readonly string[];
  readonly granted: string | null;
}

/** Settings › Connected apps: the granted apps, and the MCP server's address to add Gleaner to an assistant by. */
export function connectedAppsPage(
  apps: readonly ConnectedApp[],
  csrfToken: string,
  mcpAddress: string,
  notice?: string | null,
): string {
  const list = apps.length
    ? `<ul class="list">${apps
        .map(
          (app) =>
            `<li><span><strong>${escapeHtml(app.clientName)}</strong><br><span class="muted">${escapeHtml(app.scopes.join(', ') || 'no scopes')}${app.granted ? ` · since ${escapeHtml(app.granted.slice(0, 10))}` : ''}</span></span> ${postButton(webPaths.connectedAppRevoke, csrfToken, `Revoke ${app.clientName}`, 'secondary', { grant: app.grantId })}</li>`,
        )
        .join('')}</ul>`
    : '<p>No apps are connected to your account.</p>';
  return renderPage({
    title: 'Connected apps',
    current: 'settings',
    signedIn: { csrfToken },
    notice,
    body: `<h1>Connected apps</h1>
${settingsNavigation('apps')}
<p>Apps you allowed to use your account through OAuth. Revoking one ends its access at once.</p>
${list}
<h2>Connect an AI assistant</h2>
<p>Add Gleaner to Claude, ChatGPT, VS Code or any MCP client by this address (a remote MCP server); it asks you here what to allow.</p>
${copyField('mcp-address', 'MCP server address', mcpAddress)}`,
    scripts: ['copy.js'],
  });
}

/**
 * What the authorization server shows instead of going on: an expired sign-in step (the browser came
 * back to an interaction that is over, e.g. by Back or a reload after Allow) says to start again; any
 * other refusal says why. Either way a link back, and never a redirect to a client not yet trusted.
 */
export function authorizationErrorPage(problem: { expired: true } | { expired: false; reason: string }): string {
  const [heading, text] = problem.expired
    ? [
        'This sign-in step has expired',
        'Start again from the app that sent you here: it asks Gleaner afresh, and you come back to this step.',
      ]
    : ['This sign-in request cannot go on', problem.reason];
  return renderPage({
    title: heading,
    body: `<h1>${escapeHtml(heading)}</h1>
<p>${escapeHtml(text)}</p>
<p><a href="${webPaths.home}">Back to Gleaner</a></p>`,
  });
}
