/**
 * The base of every error that callers branch on: a stable machine-readable `code` beside the human
 * message. Process entries print `code: message`; code compares `err.code`, never message text.
 */
export class CodedError<C extends string = string> extends Error {
  constructor(
    readonly code: C,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}
