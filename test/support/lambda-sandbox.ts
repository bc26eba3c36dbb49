import { lambdaContext } from '../../local/lambda-runtime';

/**
 * A Lambda execution environment in a process of its own (run with tsx): imports a deployed bundle
 * as the Node runtime does, with the environment it was started with, then hands it one event after
 * another, each in a fresh task after the previous one, with its own X-Ray trace header, as the
 * runtime sets `_X_AMZN_TRACE_ID` per invocation. Prints the answers as one JSON array.
 *
 * Input (argv[2]): { bundle, functionName, invocations: [{ traceHeader, event }] }.
 */
interface SandboxInput {
  readonly bundle: string;
  readonly functionName: string;
  readonly invocations: readonly { readonly traceHeader: string; readonly event: unknown }[];
}

const input = JSON.parse(process.argv[2]!) as SandboxInput;
const { handler } = (await import(input.bundle)) as { handler: (event: unknown, context: unknown) => Promise<unknown> };
const answers: unknown[] = [];
for (const { traceHeader, event } of input.invocations) {
  await new Promise((next) => setImmediate(next));
  process.env._X_AMZN_TRACE_ID = traceHeader;
  answers.push(await handler(event, lambdaContext(input.functionName)));
}
console.log(JSON.stringify(answers));
