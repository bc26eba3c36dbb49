import { classify } from '../http/failures';

/**
 * What an assistant is told when a use case refuses: the failure `classify` makes of it (the same
 * the per-user API answers with 404, 409 and 422), as one sentence. Anything else is `unexpected`
 * (logged by the handler, never shown as it is).
 */
export function toolFailure(error: unknown, unexpected: (error: unknown) => string): string {
  const failure = classify(error);
  if (failure === null) return unexpected(error);
  switch (failure.kind) {
    case 'not-found':
      return `${failure.message}: the id is unknown in this account.`;
    case 'invalid':
      // Each issue named by its field; one about the whole input is its message alone.
      return failure.issues
        .map((issue) => (issue.loc.length > 1 ? `${issue.loc.at(-1)}: ${issue.msg}` : issue.msg))
        .join('; ');
    default:
      return failure.message;
  }
}
