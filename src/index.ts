// Programmatic API: `import { createClient } from 'assetgen'`.
export * from './client/errors.js';
export { ENDPOINTS, VIDEO_JOB_COST } from './api/endpoints.js';
