/**
 * Checks an HTTP response against the app's own /openapi.json: the status must be documented for that
 * path and method, every required header present, every present documented header valid, and the body
 * valid against the documented schema (JSON Schema 2020-12 via Ajv) — or absent where none is
 * documented (HEAD, 304). Paths the document does not list are checked against components/responses
 * (NotFound, BadRequest, …), as the document's description says.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, unknown>;

export interface ObservedResponse {
  method: string;
  /** Raw request path (percent-encoding as sent), query excluded. */
  path: string;
  status: number;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Raw body text ('' when none). */
  text: string;
}

const DOC_ID = 'openapi.json';
const UNLISTED: Record<number, string> = {
  400: 'BadRequest',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  408: 'RequestTimeout',
  431: 'HeadersTooLarge',
  500: 'InternalError',
};

// ajv-formats is CommonJS with a default export; under NodeNext its type is the module namespace.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

function pointer(tokens: readonly string[]): string {
  return `#${tokens.map((t) => `/${encodeURIComponent(t.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('')}`;
}

function templateRegex(template: string): RegExp {
  // The root is only itself: `//` is not `/` with a trailing slash.
  if (template === '/') return /^\/$/;
  const parts = template.split(/\{[^}]+\}/).map((p) => p.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[^/]+')}/?$`);
}

export class OpenApiValidator {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly paths: Array<{ template: string; regex: RegExp }>;

  constructor(private readonly doc: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema(doc, DOC_ID);
    this.paths = Object.keys(doc.paths as Json).map((template) => ({ template, regex: templateRegex(template) }));
  }

  private resolve(value: unknown): Json {
    let node = value as Json;
    while (typeof node.$ref === 'string') {
      const tokens = node.$ref.replace(/^#\//, '').split('/');
      node = tokens.reduce<unknown>((n, t) => (n as Json)[t], this.doc) as Json;
    }
    return node;
  }

  private schemaAt(tokens: readonly string[]): ValidateFunction {
    const ref = `${DOC_ID}${pointer(tokens)}`;
    let fn = this.compiled.get(ref);
    if (!fn) {
      fn = this.ajv.compile({ $ref: ref });
      this.compiled.set(ref, fn);
    }
    return fn;
  }

  /** Location (JSON pointer tokens) and object of the documented response, or an error text. */
  private locate(r: ObservedResponse): { tokens: string[]; response: Json } | string {
    const method = r.method.toLowerCase();
    const found = this.paths.find((p) => p.regex.test(r.path));
    if (!found) {
      const name = UNLISTED[r.status];
      if (!name) return `status ${r.status} is not documented for unlisted path ${r.path}`;
      const tokens = ['components', 'responses', name];
      return { tokens, response: this.resolve((this.doc.components as Json).responses as Json)[name] as Json };
    }
    const item = (this.doc.paths as Json)[found.template] as Json;
    const op = item[method] as Json | undefined;
    if (!op) {
      const name = UNLISTED[r.status];
      if (!name || r.status === 404) return `method ${method} not documented for ${found.template}`;
      return { tokens: ['components', 'responses', name], response: ((this.doc.components as Json).responses as Json)[name] as Json };
    }
    const responses = op.responses as Json;
    const key = String(r.status) in responses ? String(r.status) : 'default' in responses ? 'default' : null;
    if (key === null) {
      // Errors the HTTP layer can produce for any path.
      const name = UNLISTED[r.status];
      if (name && r.status !== 404)
        return { tokens: ['components', 'responses', name], response: ((this.doc.components as Json).responses as Json)[name] as Json };
      return `status ${r.status} not documented for ${method.toUpperCase()} ${found.template}`;
    }
    return { tokens: ['paths', found.template, method, 'responses', key], response: this.resolve(responses[key]) };
  }

  /** Problems found (empty when the response matches the document). */
  check(r: ObservedResponse): string[] {
    const located = this.locate(r);
    if (typeof located === 'string') return [located];
    const { tokens, response } = located;
    const errors: string[] = [];
    const where = `${r.method} ${r.path} → ${r.status}`;
    for (const [name, raw] of Object.entries((response.headers as Json | undefined) ?? {})) {
      const header = this.resolve(raw);
      const value = r.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required === true) errors.push(`${where}: missing required header ${name}`);
        continue;
      }
      const schema = header.schema as Json;
      const text = Array.isArray(value) ? value.join(', ') : value;
      const fn = this.ajv.compile(schema);
      if (!fn(text)) errors.push(`${where}: header ${name}=${JSON.stringify(text)} ${this.ajv.errorsText(fn.errors)}`);
    }
    const content = response.content as Json | undefined;
    if (!content || r.method.toUpperCase() === 'HEAD') {
      if (r.text !== '') errors.push(`${where}: expected no body, got ${JSON.stringify(r.text.slice(0, 80))}`);
      return errors;
    }
    const type =
      String(r.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim() ?? '';
    if (!(type in content)) {
      errors.push(`${where}: content-type ${JSON.stringify(type)} not documented (${Object.keys(content).join(', ')})`);
      return errors;
    }
    let body: unknown = r.text;
    if (type === 'application/json') {
      try {
        body = JSON.parse(r.text);
      } catch {
        errors.push(`${where}: body is not JSON: ${JSON.stringify(r.text.slice(0, 80))}`);
        return errors;
      }
    }
    const fn = this.schemaAt([...tokens, 'content', type, 'schema']);
    if (!fn(body)) errors.push(`${where}: body ${this.ajv.errorsText(fn.errors)} in ${r.text.slice(0, 200)}`);
    return errors;
  }
}
