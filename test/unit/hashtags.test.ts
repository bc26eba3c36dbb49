import { describe, expect, it } from 'vitest';
import { extractHashtags, TAG_MAX_LENGTH } from '../../functions/core/save/hashtags';

describe('extractHashtags', () => {
  it('lower-cases a tag', () => {
    expect(extractHashtags('Filed under #Reading')).toEqual(['reading']);
  });

  describe('a tag is letters, digits, "_" and "-" in any script', () => {
    it.each([
      ['#snake_case', 'snake_case'],
      ['#kebab-case', 'kebab-case'],
      ['#web3', 'web3'],
      ['#2024-review', '2024-review'],
      ['#_private', '_private'],
      ['#日本語', '日本語'],
      ['#café', 'café'],
      ['#cafe\u0301', 'cafe\u0301'],
      ['#Ünïcode', 'ünïcode'],
      ['#Русский', 'русский'],
    ])('%s → %s', (text, tag) => {
      expect(extractHashtags(text)).toEqual([tag]);
    });
  });

  describe('purely numeric hashtags are ordinals, not tags', () => {
    it.each(['#1', '#2024', 'issue #42 fixed', '#7-'])('%j → []', (text) => {
      expect(extractHashtags(text)).toEqual([]);
    });
  });

  describe('hashtags inside URLs are ignored', () => {
    it.each([
      ['https://x.test/page#section', []],
      ['www.x.test/#a', []],
      ['see http://x.test/#frag and #real', ['real']],
      ['#before https://x.test/a#b #after', ['before', 'after']],
      ['path/#anchor', []],
    ])('%j → %j', (text, tags) => {
      expect(extractHashtags(text)).toEqual(tags);
    });
  });

  describe('a "#" attached to a word or entity starts no tag', () => {
    it.each([
      ['I write C# daily', []],
      ['a#b', []],
      ['it&#39;s', []],
      ['it&#x27;s', []],
      ['café#x', []],
      // The first "#" is followed by another "#", and the second one follows a "#": neither starts a tag.
      ['##double', []],
      // The tag ends at the second "#", which is then attached to a word.
      ['#tag#other', ['tag']],
    ])('%j → %j', (text, tags) => {
      expect(extractHashtags(text)).toEqual(tags);
    });
  });

  describe('punctuation after a tag ends it', () => {
    it.each(['#tag,', '#tag.', '(#tag)', '#tag!', '#tag?', '"#tag"', '#tag:', '#tag;'])('%j → ["tag"]', (text) => {
      expect(extractHashtags(text)).toEqual(['tag']);
    });
  });

  describe('trailing "-" and "_" are trimmed; a tag of only those is dropped', () => {
    it.each([
      ['#tag-', ['tag']],
      ['#tag__', ['tag']],
      ['#a-b_c-_', ['a-b_c']],
      ['#-', []],
      ['#__', []],
    ])('%j → %j', (text, tags) => {
      expect(extractHashtags(text)).toEqual(tags);
    });
  });

  it('finds tags at the start of the text and of each line', () => {
    expect(extractHashtags('#first line\n#second\tline #third')).toEqual(['first', 'second', 'third']);
  });

  it('removes duplicates, case-insensitively and after trimming, keeping first-seen order', () => {
    expect(extractHashtags('#b #a #B #a- #c #A')).toEqual(['b', 'a', 'c']);
  });

  it(`keeps a tag of ${TAG_MAX_LENGTH} characters and ignores a longer one instead of cutting it`, () => {
    const longest = 'a'.repeat(TAG_MAX_LENGTH);
    expect(extractHashtags(`#${longest} #${'b'.repeat(TAG_MAX_LENGTH + 1)}`)).toEqual([longest]);
  });

  it.each([null, undefined, '', 'no tags here', '#'])('%j → []', (text) => {
    expect(extractHashtags(text)).toEqual([]);
  });
});
