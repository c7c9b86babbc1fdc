// Programmatic API: `import { createClient } from 'assetgen'`.
export * from './client/errors.js';
export { ENDPOINTS, VIDEO_JOB_COST, endpointPath, type EndpointName } from './api/endpoints.js';
export { createClient } from './client/client.js';
export type * from './client/types.js';
