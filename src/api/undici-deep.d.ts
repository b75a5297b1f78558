// Declarations for the deep undici paths src/api/undici.ts loads (the package declares only its index).
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  function request(this: Dispatcher, opts: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export default request;
}
declare module 'undici/lib/core/connect.js' {
  import type { buildConnector } from 'undici';
  function build(options: buildConnector.BuildOptions): buildConnector.connector;
  export default build;
}
