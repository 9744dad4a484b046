/**
 * The HTTP door's side of the serving errors (src/serving/errors.ts): their JSend envelope, rendered by
 * one error middleware, and the failures only HTTP has.
 *   4xx → {"status":"fail","data":{"code","message",...data}}
 *   5xx → {"status":"error","code","message","data"?}
 */
import { quote, ServingError } from '../serving/errors.js';

export function jsendBody(err: ServingError): object {
  if (err.status < 500) return { status: 'fail', data: { ...err.data, code: err.code, message: err.message } };
  return err.data
    ? { status: 'error', code: err.code, message: err.message, data: err.data }
    : { status: 'error', code: err.code, message: err.message };
}

export const ALLOW = 'GET, HEAD';

export function methodNotAllowed(method: string): ServingError {
  return new ServingError('METHOD_NOT_ALLOWED', `method ${quote(method, 20)} is not allowed here; use GET or HEAD`, undefined, {
    Allow: ALLOW,
  });
}

/**
 * The path is not quoted: an unknown path may hold a wallet's key. Nor is one route named, as if it were
 * the only one (a newcomer asking for /tx/… was told of the address endpoint).
 */
export function notFound(): ServingError {
  return new ServingError('NOT_FOUND', 'no such resource; GET /openapi.json lists every route of this API');
}

export function internal(): ServingError {
  return new ServingError('INTERNAL', 'an unexpected error occurred; it has been logged with this request id');
}
