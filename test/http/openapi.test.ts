import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/local-stack';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t.stop());

describe('GET /openapi.json', () => {
  it('serves the committed OpenAPI document as JSON, cacheable, readable from any origin', async () => {
    const response = await fetch(`${t.stack.baseUrl}/openapi.json`, { headers: { Origin: 'https://docs.example' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/json');
    expect(response.headers.get('Cache-Control')).toBe('public, max-age=300');
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(await response.json()).toEqual(
      JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')),
    );
  });

  it('answers HEAD with the headers and no body, as the other cached routes do', async () => {
    const response = await fetch(`${t.stack.baseUrl}/openapi.json`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('Cache-Control')).toBe('public, max-age=300');
    expect(await response.text()).toBe('');
  });
});

describe('GET /openapi/v2.json', () => {
  it('serves the committed document of the per-user API and the other feed formats', async () => {
    const response = await fetch(`${t.stack.baseUrl}/openapi/v2.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('Cache-Control')).toBe('public, max-age=300');
    expect(await response.json()).toEqual(
      JSON.parse(readFileSync(new URL('../../openapi-v2.json', import.meta.url), 'utf8')),
    );
  });
});
