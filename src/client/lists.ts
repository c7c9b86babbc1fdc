// Lenient readers of the service's lists (workflows, agents). One record the client cannot use is
// left out and named in `skipped` (its id, why): it never fails the whole list.
import { SAFE_ID } from '../api/endpoints.js';
import { UnexpectedResponseError } from './errors.js';
import { clean, UNSAFE_ID } from './normalize.js';
import { isObject, pick, str, type Json } from './values.js';
import type { Agent, RecordList, SkippedRecord, Workflow, WorkflowNode } from './types.js';

function list(body: unknown, keys: readonly string[]): unknown[] | undefined {
  if (Array.isArray(body)) return body as unknown[];
  if (!isObject(body)) return undefined;
  for (const key of keys) if (Array.isArray(body[key])) return body[key] as unknown[];
  return undefined;
}

/**
 * Reads each record of a list with `read`; one that cannot be read is left out and named in
 * `skipped` (its id, why), so one odd record never hides the others. `safeIds`: ids must match
 * SAFE_ID (they reach file names and printed commands); `bareIds`: a string item is a bare id.
 */
function readList<T>(
  items: unknown[],
  idKeys: readonly string[],
  read: (record: Json, id: string, item: unknown) => T,
  options: { safeIds?: boolean; bareIds?: boolean } = {},
): RecordList<T> {
  const skipped: SkippedRecord[] = [];
  const records: T[] = [];
  for (const item of items) {
    const record: Json | undefined = isObject(item) ? item : options.bareIds && typeof item === 'string' ? { id: item } : undefined;
    const value: unknown = record ? pick(record, idKeys) : undefined;
    const id = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
    const why = !record ? 'not a JSON object' : !id ? 'has no id' : options.safeIds && !SAFE_ID.test(id) ? UNSAFE_ID : undefined;
    if (why === undefined) records.push(read(record!, id!, item));
    else skipped.push({ id: id ? id.slice(0, 200) : null, why });
  }
  return Object.assign(records, { skipped });
}

export function normalizeWorkflows(body: unknown): RecordList<Workflow> {
  const items = list(body, ['workflows', 'data', 'items', 'results']);
  if (!items) throw new UnexpectedResponseError('The workflow list is not a list the client recognises.', body);
  return readList(
    items,
    ['id', 'workflowId', 'workflow_id'],
    (record, id) => {
      const declared = Array.isArray(record.overridableNodes ?? record.overridable_nodes)
        ? ((record.overridableNodes ?? record.overridable_nodes) as unknown[])
            .map((item) => (isObject(item) ? str(item.id) : str(item)))
            .filter((x): x is string => Boolean(x))
        : undefined;
      const nodes: WorkflowNode[] = (Array.isArray(record.nodes) ? record.nodes : []).filter(isObject).flatMap((node) => {
        const nodeId = str(pick(node, ['id', 'nodeId', 'node_id']));
        if (!nodeId) return [];
        const overridable = node.overridable === true || declared?.includes(nodeId) === true;
        return [
          clean({
            id: nodeId,
            type: str(node.type),
            label: str(pick(node, ['label', 'name', 'title'])),
            overridable,
            prompt: str(node.prompt),
          }),
        ];
      });
      const workflow: Workflow = {
        id,
        nodes,
        overridableNodes: declared ?? nodes.filter((node) => node.overridable).map((node) => node.id),
        raw: record,
      };
      const name = str(pick(record, ['name', 'title']));
      if (name) workflow.name = name;
      const description = str(record.description);
      if (description) workflow.description = description;
      return workflow;
    },
    { safeIds: true },
  );
}

export function normalizeAgents(body: unknown): RecordList<Agent> {
  const items = list(body, ['agents', 'data', 'items', 'results']);
  if (!items) throw new UnexpectedResponseError('The agent list is not a list the client recognises.', body);
  return readList(
    items,
    ['id', 'agentId', 'agent_id', 'slug'],
    (record, id, item) =>
      typeof item === 'string'
        ? { id, raw: item }
        : clean({
            id,
            name: str(pick(record, ['name', 'title'])),
            kind: str(pick(record, ['kind', 'type'])),
            description: str(record.description),
            raw: record,
          }),
    { bareIds: true },
  );
}
