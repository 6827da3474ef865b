/**
 * Test helper: runs `fn` and returns the EsError it throws, failing the test when it throws
 * nothing or something that is not an EsError.
 */
import { EsError } from '../../protocol/errors.ts';

/** The EsError thrown by `fn`. @throws Error when `fn` returns normally; rethrows non-EsErrors. */
export function esErr(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    if (e instanceof EsError) return e;
    throw e;
  }
  throw new Error('expected an EsError');
}
