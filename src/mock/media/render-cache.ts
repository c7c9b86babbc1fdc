// Rendered files by (kind, agent, prompt): each distinct asset is drawn once per GET burst.
// Bounded (least recently used goes first), since prompts are endless.
const RENDER_CACHE_ENTRIES = 256;
const renderCache = new Map<string, Buffer>();

/** The bytes under key, rendering them on a miss. */
export function cached(key: string, render: () => Buffer): Buffer {
  const hit = renderCache.get(key);
  if (hit) {
    renderCache.delete(key);
    renderCache.set(key, hit);
    return hit;
  }
  const bytes = render();
  renderCache.set(key, bytes);
  if (renderCache.size > RENDER_CACHE_ENTRIES) renderCache.delete(renderCache.keys().next().value!);
  return bytes;
}
