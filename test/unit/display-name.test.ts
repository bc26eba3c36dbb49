import { describe, expect, it } from 'vitest';
import { DISPLAY_NAME_MAX_LENGTH, displayNameOf, newUser } from '../../functions/core/workspace/accounts';

describe('display names', () => {
  it('keeps a name trimmed, and an empty one as no name', () => {
    expect(displayNameOf('  Ana Reader \t')).toEqual({ ok: true, value: 'Ana Reader' });
    expect(displayNameOf('   ')).toEqual({ ok: true, value: '' });
    expect(displayNameOf('Zoë 🌱 Ōkubo')).toEqual({ ok: true, value: 'Zoë 🌱 Ōkubo' });
  });

  it('counts characters, not UTF-16 units, against the limit', () => {
    expect(displayNameOf('🌱'.repeat(DISPLAY_NAME_MAX_LENGTH)).ok).toBe(true);
    expect(displayNameOf('a'.repeat(DISPLAY_NAME_MAX_LENGTH + 1))).toEqual({
      ok: false,
      problem: `A display name has at most ${DISPLAY_NAME_MAX_LENGTH} characters.`,
    });
  });

  it('refuses control characters, line breaks and lone surrogates', () => {
    for (const bad of ['a\u0000b', 'a\nb', 'a\u001b[31mb', 'a\u0085b', 'a\u2028b', 'a\uD800b'])
      expect(displayNameOf(bad).ok, JSON.stringify(bad)).toBe(false);
  });

  it('leaves a new user without a display name unless one is given', () => {
    const now = new Date();
    expect(newUser({ id: 'u', name: 'label', now }).displayName).toBe('');
    expect(newUser({ id: 'u', name: '', displayName: 'Ana', now }).displayName).toBe('Ana');
  });
});
