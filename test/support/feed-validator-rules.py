"""
The W3C Feed Validation Service's checks on RSS 2.0 text, for a feed piped to stdin; prints the
warnings as a JSON list. The validator (github.com/rubys/feedvalidator) is neither on npm nor in
Debian, so these are its rules for plain-text elements restated: HTML end tags or entities in text
that should be plain ("should not contain HTML"), character references that do not use the RSS
Profile's hexadecimal form ("Encode & and < ..."), C1 controls, DEL and U+FFFD ("bad characters"),
a channel without a language, and active content in the HTML of item descriptions.
"""
import html.entities, json, re, sys, xml.sax
from html.parser import HTMLParser

RAW = sys.stdin.read()
# Per source line: does it write a hexadecimal character reference? (the RSS Profile's escaping)
HEX_CHARDATA_LINES = ['&#x' in line for line in RAW.split('\n')]
HTML_ELEMENTS = set('''a abbr address area article aside audio b base bdi bdo blockquote body br button
canvas caption cite code col colgroup data datalist dd del details dfn dialog div dl dt em embed
fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hr html i iframe img input ins
kbd label legend li link main map mark menu meta meter nav noscript object ol optgroup option output
p param picture pre progress q rp rt ruby s samp script section select small source span strong style
sub summary sup table tbody td template textarea tfoot th thead time title tr track u ul var video wbr
font center big tt strike'''.split())
PLAIN_TEXT = {('channel', 'title'), ('channel', 'description'), ('item', 'title'), ('item', 'category'), ('channel', 'category')}
HTML_TEXT = {('item', 'description'), ('item', 'content:encoded')}
ACTIVE = {'script', 'style', 'iframe', 'object', 'embed', 'form', 'meta', 'link', 'base'}

warnings = []

def bad_characters(where, text):
    if any(0x7F <= ord(c) <= 0x9F or c == '\ufffd' for c in text):
        warnings.append(f'{where} contains bad characters')

class ActiveContent(HTMLParser):
    def __init__(self, where):
        super().__init__(convert_charrefs=True)
        self.where = where
    def handle_starttag(self, tag, attrs):
        if tag in ACTIVE or any(name.startswith('on') for name, _ in attrs) or any(
                (value or '').strip().lower().startswith('javascript:') for _, value in attrs):
            warnings.append(f'{self.where} should not contain {tag}')

class Rules(xml.sax.ContentHandler):
    def setDocumentLocator(self, locator):
        self.locator = locator
    def startDocument(self):
        self.stack = []
        self.languages = 0
    def startElement(self, name, attrs):
        self.stack.append({'name': name, 'text': [], 'line': self.locator.getLineNumber()})
        for attr in attrs.getNames():
            bad_characters(f'{name}@{attr}', attrs.getValue(attr))
        if name == 'language' and len(self.stack) > 1 and self.stack[-2]['name'] == 'channel':
            self.languages += 1
    def characters(self, content):
        self.stack[-1]['text'].append(content)
    def endElement(self, name):
        element = self.stack.pop()
        value = ''.join(element['text'])
        parent = self.stack[-1]['name'] if self.stack else None
        where = f'{parent}/{name}'
        bad_characters(where, value)
        hex_escaped = any(HEX_CHARDATA_LINES[element['line'] - 1:self.locator.getLineNumber()])
        if (parent, name) in PLAIN_TEXT:
            tags = [tag for tag in re.findall(r'</(\w+)>', value) if tag.lower() in HTML_ELEMENTS]
            entities = [e for e in re.findall(r'&(#?\w+)', value)
                        if e in html.entities.name2codepoint or e == 'apos' or not e.isalpha()]
            if tags or (entities and not hex_escaped):
                warnings.append(f'{where} should not contain HTML')
            elif not entities and re.search(r'&#[x0-9]|<[/a-zA-Z]', value) and not hex_escaped:
                warnings.append(f'{where}: Encode "&" and "<" in plain text using hexadecimal character references.')
        if (parent, name) in HTML_TEXT:
            ActiveContent(where).feed(value)
        if name == 'channel' and self.languages == 0:
            warnings.append('channel should contain a language element')

xml.sax.parseString(RAW.encode('utf-8'), Rules())
print(json.dumps(warnings))
