/**
 * Typed domain errors. Domain code throws them; the gateway's one error middleware turns them
 * into the envelope (docs/api.md). No route builds an error envelope by hand.
 */
export class AppError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown = null,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A failure the user must read: the storefront shows the message as a toast. */
export class UserFacingError extends AppError {
  constructor(message: string) {
    super(500, message);
  }
}

export class Unauthorized extends AppError {
  constructor(message = 'Please log in') {
    super(401, message);
  }
}

/** A part the call needs is down or refusing work for now (its circuit is open): try again shortly. */
export class ServiceUnavailable extends AppError {
  constructor(message = 'This is unavailable right now. Please try again shortly.') {
    super(503, message);
  }
}

export class PaymentRequired extends AppError {
  constructor(message: string, data: unknown) {
    super(402, message, data);
  }
}

export class Forbidden extends AppError {
  constructor(message = 'Forbidden') {
    super(403, message);
  }
}

export class NotFound extends AppError {
  constructor(message = 'Not found') {
    super(404, message);
  }
}

export class Conflict extends AppError {
  constructor(message: string) {
    super(409, message);
  }
}

/** Asked too often: try again in `retryAfterSeconds` (the answer's HTTP 429 and Retry-After, as the gateway's rate limits answer). */
export class TooManyRequests extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, message, { retryAfterSeconds });
  }
}

/** Invalid input; `fields` maps each field to the prompt the user sees beside it. */
export class Invalid extends AppError {
  constructor(readonly fields: Record<string, string>) {
    super(422, Object.values(fields)[0] ?? 'Invalid input', { fields });
  }
}
