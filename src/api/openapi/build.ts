/**
 * The building blocks of the OpenAPI document: JSend envelopes, headers, responses and path items, so
 * each part of the document states only what is particular to it.
 */
import { ERROR_STATUS, type ErrorCode } from '../../serving/errors.js';

export type Json = Record<string, unknown>;

export const INT_TEXT = { type: 'string', pattern: '^[0-9]+$' };
export const ref = (kind: 'schemas' | 'headers' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Methods answered 405 on every path (HEAD and GET are served). */
export const OTHER_METHODS = ['put', 'post', 'delete', 'options', 'patch', 'trace'] as const;

export function codesWithStatus(status: number): ErrorCode[] {
  return (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((c) => ERROR_STATUS[c] === status);
}

export function failSchema(codes: readonly ErrorCode[], extra: Json = {}): Json {
  return {
    type: 'object',
    required: ['status', 'data'],
    additionalProperties: false,
    properties: {
      status: { const: 'fail' },
      data: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { enum: codes }, message: { type: 'string', minLength: 1 }, ...extra },
      },
    },
  };
}

export function errorSchema(codes: readonly ErrorCode[], data?: Json): Json {
  return {
    type: 'object',
    required: data ? ['status', 'code', 'message', 'data'] : ['status', 'code', 'message'],
    additionalProperties: false,
    properties: {
      status: { const: 'error' },
      code: { enum: codes },
      message: { type: 'string', minLength: 1 },
      data: data ?? { type: 'object' },
    },
  };
}

export type HeaderName =
  | 'X-Request-Id'
  | 'RateLimit-Limit'
  | 'RateLimit-Remaining'
  | 'RateLimit-Reset'
  | 'Retry-After'
  | 'ETag'
  | 'Cache-Control'
  | 'Allow'
  | 'WWW-Authenticate'
  | 'X-Index-Age'
  | 'X-Tip-Age';

export function headers(required: readonly HeaderName[], optional: readonly HeaderName[] = []): Json {
  const out: Json = {};
  for (const name of ['X-Request-Id', ...required] as HeaderName[]) out[name] = { ...HEADERS[name], required: true };
  for (const name of optional) out[name] = ref('headers', name);
  return out;
}

export const json = (schema: Json) => ({ 'application/json': { schema } });

/** The JSend success envelope around `data`. */
export function successSchema(data: Json): Json {
  return { type: 'object', additionalProperties: false, required: ['status', 'data'], properties: { status: { const: 'success' }, data } };
}

export function response(description: string, schema: Json | null, hdrs: Json): Json {
  return schema ? { description, headers: hdrs, content: json(schema) } : { description, headers: hdrs };
}

export const HEADERS: Record<HeaderName, Json> = {
  'X-Request-Id': {
    description: "The request id (the caller's X-Request-Id when short and plain, else a new UUID); it names the request in the logs.",
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  'RateLimit-Limit': {
    description: "Requests allowed in a burst for the caller's tier (IETF RateLimit header fields draft).",
    schema: INT_TEXT,
  },
  'RateLimit-Remaining': { description: 'Requests left in the current burst.', schema: INT_TEXT },
  'RateLimit-Reset': { description: 'Seconds until the full burst is available again.', schema: INT_TEXT },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: INT_TEXT },
  ETag: {
    description: 'Changes exactly when the indexed tip (or the address) changes; send it back in If-None-Match.',
    schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]+"$' },
  },
  'Cache-Control': { description: '`no-cache` on answers (revalidate with the ETag), `no-store` on errors.', schema: { type: 'string' } },
  Allow: { description: 'The methods this path serves.', schema: { enum: ['GET, HEAD', 'POST'] } },
  'WWW-Authenticate': { description: 'How to authenticate: the x-api-key header.', schema: { type: 'string' } },
  'X-Index-Age': {
    description: 'Seconds since the indexer last heard from its node (the answer is at most this stale; see api.staleAfterSeconds).',
    schema: INT_TEXT,
  },
  'X-Tip-Age': { description: "Seconds since the indexed tip block's header time (absent when unknown).", schema: INT_TEXT },
};

export const LIMITS: HeaderName[] = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

export const internalError = response(
  'Unexpected failure; details are only in the server log under the request id.',
  errorSchema(['INTERNAL']),
  headers([], ['Cache-Control']),
);
export const notAllowed = response(
  'Method not allowed (only GET and HEAD are served).',
  failSchema(['METHOD_NOT_ALLOWED']),
  headers(['Allow'], ['Cache-Control']),
);
export const badRequest = response(
  'Malformed request (URL percent-encoding, HTTP syntax).',
  failSchema(['BAD_REQUEST']),
  headers([], ['Cache-Control']),
);

/** HEAD answers: the GET responses without bodies. */
export function withoutBodies(responses: Json): Json {
  return Object.fromEntries(
    Object.entries(responses).map(([status, r]) => {
      const { content: _content, ...rest } = r as Json;
      return [status, rest];
    }),
  );
}

export function pathItem(tag: string, summary: string, get: Json, security?: Json[]): Json {
  const base = security ? { tags: [tag], security } : { tags: [tag], security: [] };
  const responses = get.responses as Json;
  const item: Json = {
    get: { ...base, summary, ...get },
    head: {
      ...base,
      summary: `${summary} (headers only)`,
      ...get,
      operationId: `${String(get.operationId)}Head`,
      responses: withoutBodies(responses),
    },
  };
  for (const method of OTHER_METHODS) {
    item[method] = { ...base, summary: 'Not allowed', operationId: `${String(get.operationId)}_${method}`, responses: { 405: notAllowed } };
  }
  return item;
}

export function opsResponses(ok: Json, extra: Json = {}): Json {
  return { 200: ok, ...extra, 500: internalError };
}
