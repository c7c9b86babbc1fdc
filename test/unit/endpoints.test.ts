import { describe, expect, it } from 'vitest';
import { ENDPOINTS, endpointPath } from '../../src/api/endpoints.js';

describe('endpoint table', () => {
  it('lists the nine endpoints of the service document', () => {
    expect(Object.keys(ENDPOINTS)).toHaveLength(9);
  });

  it('fills and encodes path parameters', () => {
    expect(endpointPath('getRun', { runId: 'run 1/2' })).toBe('/api/v1/runs/run%201%2F2');
    expect(() => endpointPath('getVideo')).toThrow(/missing :id/);
  });
});
