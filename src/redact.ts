/** A URL safe to print: user and password replaced, host, path and query kept; never throws. */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password !== '') url.password = '***';
    if (url.username !== '') url.username = '***';
    return url.toString();
  } catch {
    return '<unparseable URL>';
  }
}
