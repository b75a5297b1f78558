// Every route the sandbox answers, in one table: createSandbox() serves it, and the OpenAPI
// document (src/sandbox/openapi/) is built from it, so the two cannot disagree.
import { Routes } from '../http/context.js';
import { registerAccountRoutes } from './accounts.js';
import { registerAgentAccountRoutes } from './agent-accounts.js';
import { registerAgentRoutes } from './agents.js';
import { registerControlRoutes } from './control.js';
import { registerOpenApiRoute } from './openapi.js';
import { registerTransferRoutes } from './transfers.js';
import { registerWebhookRoutes } from './webhooks.js';

export function sandboxRoutes(): Routes {
  const routes = new Routes();
  registerAccountRoutes(routes);
  registerTransferRoutes(routes);
  registerAgentRoutes(routes);
  registerAgentAccountRoutes(routes);
  registerWebhookRoutes(routes);
  registerControlRoutes(routes);
  registerOpenApiRoute(routes);
  return routes;
}
