/**
 * The embed script (`GET /feeds/embed.js`) a site includes with the snippet from a feed's page:
 *
 *   <script src=".../feeds/embed.js" data-feed="<JSON endpoint>" data-page="<feed page>" data-limit="5" async></script>
 *
 * It fetches the contract's JSON endpoint (CORS is open to every site) and renders the newest
 * entries as a list right after itself. Entries are written with textContent only, so nothing in
 * a feed becomes markup on the host page. Plain ES5 for every browser a blog's readers use.
 */
export const FEED_EMBED_SCRIPT = `(function () {
  var script = document.currentScript;
  if (!script) return;
  var feedUrl = script.getAttribute('data-feed');
  var pageUrl = script.getAttribute('data-page');
  var limit = parseInt(script.getAttribute('data-limit'), 10) || 5;
  var box = document.createElement('section');
  box.className = 'gleaner-feed';
  script.parentNode.insertBefore(box, script.nextSibling);
  function element(name, text, className) {
    var node = document.createElement(name);
    if (text) node.textContent = text;
    if (className) node.className = className;
    return node;
  }
  function link(text, href) {
    if (!href || !/^https?:/i.test(href)) return element('span', text);
    var anchor = element('a', text);
    anchor.href = href;
    return anchor;
  }
  fetch(feedUrl).then(function (response) {
    if (!response.ok) throw new Error('HTTP ' + response.status);
    return response.json();
  }).then(function (feed) {
    var heading = element('p', '', 'gleaner-feed-title');
    heading.appendChild(link(feed.title, pageUrl));
    box.appendChild(heading);
    var list = element('ul', '', 'gleaner-feed-entries');
    feed.entries.slice(0, limit).forEach(function (entry) {
      var item = element('li');
      item.appendChild(link(entry.title || 'Untitled', pageUrl && pageUrl + '#entry-' + encodeURIComponent(entry.id)));
      if (entry.updated) item.appendChild(element('time', ' ' + entry.updated.slice(0, 10))).setAttribute('datetime', entry.updated);
      list.appendChild(item);
    });
    box.appendChild(list);
  }).catch(function () {
    box.appendChild(link('This feed could not be loaded.', pageUrl));
  });
})();
`;
