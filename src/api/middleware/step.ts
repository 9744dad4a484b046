/**
 * A step of a route: a check that throws its ServingError, or returns nothing when the request may go on —
 * or a promise of that, when it asks a shared store (Redis limits). The address route runs its steps in
 * one handler (inSequence), the batch route as separate middleware (asMiddleware); the synchronous path
 * of either allocates no promise.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export type Step = (req: Request, res: Response) => void | Promise<void>;

/** Express 5 forwards a thrown error, or a rejected promise returned by a handler, to the error handler. */
export function asMiddleware(step: Step): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const pending = step(req, res);
    if (pending instanceof Promise) return pending.then(() => next());
    next();
  };
}

/** The steps in order as one step: each runs after the one before it has passed. */
export function inSequence(...steps: readonly Step[]): Step {
  const from = (i: number, req: Request, res: Response): void | Promise<void> => {
    for (; i < steps.length; i++) {
      const pending = steps[i]!(req, res);
      if (pending instanceof Promise) {
        const next = i + 1;
        // The last step's promise is the sequence's own: no extra turn to wait for nothing.
        return next === steps.length ? pending : pending.then(() => from(next, req, res));
      }
    }
  };
  return (req, res) => from(0, req, res);
}
