/**
 * A webhook body as the events view shows it: JSON indented, every value spelled as the sender sent
 * it, checked against JSON.stringify where that is exact and against the literal where it is not.
 */
import { describe, expect, it } from 'vitest';
import { indentJson } from '../src/body.ts';

describe('a JSON body in the events view', () => {
  it('is indented as JSON.stringify indents it, for values it writes back exactly', () => {
    for (const text of [
      '{"a":1,"b":[true,false,null],"c":{"d":"x, y: {z}","e":[]},"f":{}}',
      ' [ 1 , { "k" : "v\\"q" } , "\\\\" ] ',
      '"just a string"',
      '{"nested":[[1,[2,[3]]],{"a":{"b":{}}}]}',
    ])
      expect(indentJson(text)).toBe(JSON.stringify(JSON.parse(text), null, 2));
  });

  it('keeps every digit of an id past 2^53 and numbers as they were written', () => {
    expect(indentJson('{"id":12345678901234567891,"amount":1.10,"e":1E3}')).toBe(
      '{\n  "id": 12345678901234567891,\n  "amount": 1.10,\n  "e": 1E3\n}',
    );
  });
});
