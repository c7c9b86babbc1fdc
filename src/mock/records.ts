// The records as the API shows them: generations, runs and video jobs.
import { FILES_PATH } from './constants.js';
import { VIDEO_CONTENT_TYPE } from './media/gif.js';
import { IMAGE_SIZE, PNG_BYTES } from './media/png.js';
import { now, type MockState, type RunRecord, type VideoRecord } from './state.js';

// ── records as the API shows them ────────────────────────────────────────────────────────────────
const fileUrl = (origin: string, name: string): string => `${origin}${FILES_PATH}/${encodeURIComponent(name)}`;

export function generationRecord(
  origin: string,
  id: string,
  agentId: string,
  promptText: string,
  credits: { charged: number; remaining: number },
) {
  return {
    id,
    object: 'generation',
    agentId,
    prompt: promptText,
    status: 'succeeded',
    output: { url: fileUrl(origin, `${id}.png`), contentType: 'image/png', width: IMAGE_SIZE, height: IMAGE_SIZE, bytes: PNG_BYTES },
    credits,
    createdAt: now(),
  };
}

/** A run as the API shows it; `credits`: what the call answered with it charged (and the balance after). */
export function runRecord(origin: string, run: RunRecord, credits: { charged: number; remaining: number }) {
  const current = run.status === 'succeeded' ? null : run.nodes[run.completedNodes];
  const withUrl = (output: RunRecord['nodes'][number]['output']) =>
    output && 'url' in output ? { url: fileUrl(origin, output.url), contentType: output.contentType } : output;
  return {
    id: run.id,
    object: 'run',
    workflowId: run.workflowId,
    status: run.status,
    totalNodes: run.nodes.length,
    completedNodes: run.completedNodes,
    currentNode: current ? { id: current.id, label: current.label } : null,
    nodes: run.nodes.map((node) => ({
      id: node.id,
      type: node.type,
      label: node.label,
      status: node.status,
      ...(node.output ? { output: withUrl(node.output) } : {}),
    })),
    outputs: run.nodes.flatMap((node) =>
      node.output && 'url' in node.output
        ? [{ nodeId: node.id, url: fileUrl(origin, node.output.url), contentType: node.output.contentType }]
        : [],
    ),
    credits,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  };
}

export function videoRecord(state: MockState, origin: string, video: VideoRecord, credits: { charged: number; remaining: number }) {
  const progress = video.status === 'succeeded' || video.status === 'failed' ? 1 : Math.min(0.95, video.polls / video.steps);
  return {
    id: video.id,
    object: 'video_job',
    status: video.status,
    agentId: video.agentId,
    prompt: video.prompt,
    durationSeconds: video.durationSeconds,
    aspectRatio: video.aspectRatio,
    progress,
    output: video.fileName ? { url: fileUrl(origin, video.fileName), contentType: VIDEO_CONTENT_TYPE } : null,
    error: video.error,
    refunded: video.refund !== null,
    refund: video.refund,
    credits,
    pollAfterMs: state.config.videoPollAfterMs,
    createdAt: video.createdAt,
    updatedAt: video.updatedAt,
  };
}
