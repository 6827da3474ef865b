import { describe, expect, it } from 'vitest';
import { allowedMethods, unroutedResponse } from './method-not-allowed.ts';

const routes = [
  { method: 'ALL', path: '*' },
  { method: 'GET', path: '/' },
  { method: 'GET', path: '/_cat/indices' },
  { method: 'GET', path: '/:index/_search' },
  { method: 'POST', path: '/:index/_search' },
  { method: 'PUT', path: '/:index' },
  { method: 'DELETE', path: '/:index' },
];

describe('unrouted requests', () => {
  it('lists the methods of a known path, HEAD with GET', () => {
    expect(allowedMethods(routes, '/_cat/indices')).toEqual(['GET', 'HEAD']);
    expect(allowedMethods(routes, '/cities/_search')).toEqual(['GET', 'HEAD', 'POST']);
    expect(allowedMethods(routes, '/a/b/c/d')).toEqual([]);
  });

  it('answers 405 with Allow for a known path, 400 for an unknown one, as ES', () => {
    expect(unroutedResponse(routes, 'DELETE', '/_cat/indices')).toEqual({
      status: 405,
      body: { error: 'Incorrect HTTP method for uri [/_cat/indices] and method [DELETE], allowed: [GET, HEAD]', status: 405 },
      headers: { Allow: 'GET,HEAD' },
    });
    expect(unroutedResponse(routes, 'GET', '/x/_nope/y')).toEqual({
      status: 400,
      body: { error: 'no handler found for uri [/x/_nope/y] and method [GET]' },
      headers: {},
    });
  });
});
