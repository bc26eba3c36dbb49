import { routes } from '../../functions/platform/routes';
import { createApiServer, keepServingOnStrayErrors } from '../../local/api-server';

/**
 * A local API server (as npm start runs it) whose one route leaves an error uncaught: a rejection no
 * one awaits (`?kind=rejection`) or a throw in a timer (`?kind=throw`), and never answers itself.
 * Prints its port. For test/unit/local-api-server.test.ts, in a process of its own.
 */

keepServingOnStrayErrors((line) => console.error(line));
const saveRoute = routes.find((route) => route.id === 'SaveBookmark')!;
const server = createApiServer({
  corsOrigins: [],
  log: (line) => console.error(line),
  routes: () => [
    {
      definition: saveRoute,
      gatewayHeaders: () => ({}),
      handler: (event) => {
        if (event.queryStringParameters?.kind === 'throw') {
          setTimeout(() => {
            throw new Error('thrown in a timer');
          }, 1);
        } else {
          void Promise.reject(new Error('a rejection no one awaits'));
        }
        return new Promise(() => {});
      },
    },
  ],
});
server.listen(0, '127.0.0.1', () => console.log(`port ${(server.address() as { port: number }).port}`));
