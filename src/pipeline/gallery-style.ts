// The gallery's stylesheet (inline: the page loads nothing): a responsive grid of cards, status
// badges in colour and words, light and dark from prefers-color-scheme. Pixel art stays crisp.
export const GALLERY_STYLE = `
:root {
  --bg: #f4f5f7; --card: #ffffff; --fg: #1c1e21; --muted: #5f6670; --line: #d9dde3; --code: #eef0f3;
  --check-a: #e9ebee; --check-b: #f7f8f9;
  --new: #1a7f37; --new-bg: #dcf5e3; --unchanged: #4b5563; --unchanged-bg: #e5e7eb;
  --failed: #b42318; --failed-bg: #fde3e1; --skipped: #9a6700; --skipped-bg: #fff1c2;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f1115; --card: #181b21; --fg: #e6e8eb; --muted: #9aa3ad; --line: #2b3038; --code: #22262d;
    --check-a: #20242b; --check-b: #2a2f37;
    --new: #4ade80; --new-bg: #12351f; --unchanged: #c3c8cf; --unchanged-bg: #2b3038;
    --failed: #f87171; --failed-bg: #3d1715; --skipped: #facc15; --skipped-bg: #3a2f0a;
  }
}
* { box-sizing: border-box; }
body { margin: 0; padding: 24px; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
code { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code);
  padding: 1px 4px; border-radius: 4px; overflow-wrap: anywhere; }
.top { max-width: 1400px; margin: 0 auto 20px; }
h1 { font-size: 22px; margin: 0 0 8px; }
h1 .count { font-weight: 400; color: var(--muted); font-size: 16px; margin-left: 6px; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0 0 12px; color: var(--muted); }
.facts dd { margin: 0; }
.totals { display: flex; flex-wrap: wrap; gap: 8px; list-style: none; padding: 0; margin: 0 0 8px; }
.chip { padding: 4px 10px; border-radius: 999px; background: var(--card); border: 1px solid var(--line); }
.chip .n { font-weight: 700; }
.chip.zero { opacity: .55; }
.chip.s-new { color: var(--new); background: var(--new-bg); border-color: transparent; }
.chip.s-failed { color: var(--failed); background: var(--failed-bg); border-color: transparent; }
.chip.s-skipped { color: var(--skipped); background: var(--skipped-bg); border-color: transparent; }
.note { margin: 4px 0; color: var(--muted); }
.grid { max-width: 1400px; margin: 0 auto; display: grid; gap: 16px; grid-template-columns: repeat(auto-fill, minmax(250px, 1fr)); }
.empty { text-align: center; color: var(--muted); }
.card { background: var(--card); border: 1px solid var(--line); border-top: 4px solid var(--unchanged);
  border-radius: 10px; overflow: hidden; display: flex; flex-direction: column; }
.card.s-new { border-top-color: var(--new); }
.card.s-failed { border-top-color: var(--failed); }
.card.s-skipped { border-top-color: var(--skipped); }
.media { display: grid; gap: 2px; background: var(--line); }
.media.multi { grid-template-columns: repeat(auto-fit, minmax(110px, 1fr)); }
figure { margin: 0; background: var(--card); display: flex; flex-direction: column; }
figure img, figure video, .placeholder { width: 100%; aspect-ratio: 1; object-fit: contain; display: block;
  background: repeating-conic-gradient(var(--check-a) 0 25%, var(--check-b) 0 50%) 0 0 / 16px 16px; }
figure img { image-rendering: pixelated; }
figure video { background: #000; }
.placeholder { display: flex; align-items: center; justify-content: center; padding: 12px; text-align: center;
  color: var(--muted); border: 2px dashed var(--line); background: var(--code); font-style: italic; }
figcaption { padding: 4px 8px; font-size: 11px; color: var(--muted); }
figcaption code { background: none; padding: 0; }
figcaption .dims { font-weight: 700; color: var(--fg); }
/* A sheet's atlas at its own aspect ratio, each frame outlined and named over it (boxes in percent). */
.atlas .frames { position: relative; }
figure.atlas img { aspect-ratio: auto; height: auto; }
.frame { position: absolute; border: 1px solid #e11d48; box-shadow: inset 0 0 0 1px rgba(255, 255, 255, .5); overflow: hidden; }
.frame span { position: absolute; left: 0; top: 0; max-width: 100%; padding: 0 2px; overflow: hidden; white-space: nowrap;
  text-overflow: ellipsis; font: 9px/1.3 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: #fff; background: rgba(225, 29, 72, .8); }
.atlas-note { margin: 0; font-size: 12px; color: var(--muted); }
.meta .post { font: 11px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.body { padding: 10px 12px 12px; display: flex; flex-direction: column; gap: 6px; }
.title { display: flex; align-items: center; justify-content: space-between; gap: 8px; }
h2 { font-size: 15px; margin: 0; overflow-wrap: anywhere; }
.badge { font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: .04em; padding: 2px 8px;
  border-radius: 999px; white-space: nowrap; color: var(--unchanged); background: var(--unchanged-bg); }
.badge.s-new { color: var(--new); background: var(--new-bg); }
.badge.s-failed { color: var(--failed); background: var(--failed-bg); }
.badge.s-skipped { color: var(--skipped); background: var(--skipped-bg); }
.badge::before { content: "● "; }
.badge.s-failed::before { content: "✕ "; }
.badge.s-skipped::before { content: "◌ "; }
.prompt { margin: 0; overflow-wrap: anywhere; }
.set { margin: 0; padding-left: 18px; overflow-wrap: anywhere; }
.meta { display: grid; grid-template-columns: max-content 1fr; gap: 0 10px; margin: 0; color: var(--muted); font-size: 12px; }
.meta dd { margin: 0; overflow-wrap: anywhere; }
.reason { margin: 0; padding: 6px 8px; border-radius: 6px; background: var(--code); font-size: 12px; overflow-wrap: anywhere; }
.s-failed .reason { background: var(--failed-bg); }
.s-skipped .reason { background: var(--skipped-bg); }
.resume { margin: 0; font-size: 12px; color: var(--muted); }
/* An asset's takes side by side, numbered; the picked one framed in green and marked in words. */
.card.has-takes { grid-column: span 2; }
.card.has-takes .media img, .card.has-takes .media .placeholder { max-height: 220px; }
@media (max-width: 620px) { .card.has-takes { grid-column: auto; } }
.takes { padding: 8px 12px 0; }
.takes h3 { font-size: 13px; margin: 0 0 6px; }
.takes h3 small { font-weight: 400; color: var(--muted); }
.take-list { list-style: none; margin: 0; padding: 0; display: grid; gap: 8px; grid-template-columns: repeat(auto-fill, minmax(120px, 1fr)); }
.take { border: 2px solid var(--line); border-radius: 8px; overflow: hidden; display: flex; flex-direction: column; }
.take.picked { border: 3px solid var(--new); }
.take-head { display: flex; align-items: center; gap: 6px; padding: 3px 4px; }
.take-k { min-width: 22px; padding: 0 5px; text-align: center; font-weight: 700; color: #fff; background: #000; border-radius: 4px; }
.picked-mark { font-size: 11px; font-weight: 700; text-transform: uppercase; color: var(--new); }
.take img, .take .placeholder { width: 100%; aspect-ratio: 1; object-fit: contain; display: block; image-rendering: pixelated;
  background: repeating-conic-gradient(var(--check-a) 0 25%, var(--check-b) 0 50%) 0 0 / 16px 16px; }
.take .placeholder { display: flex; background: var(--code); }
.metrics { display: grid; grid-template-columns: max-content 1fr; gap: 0 6px; margin: 4px 6px 0; font-size: 11px; color: var(--muted); }
.metrics dd { margin: 0; }
.pick-line { margin: 4px 6px 6px; font-size: 11px; color: var(--muted); }
.pick { user-select: all; }
/* build --check --report: each image's figures, and the rules broken in the failed colour. */
.checks h3 { font-size: 13px; margin: 0; }
.checks h3 small { font-weight: 400; color: var(--muted); }
.checks ul { margin: 2px 0 0; padding-left: 16px; font-size: 12px; color: var(--muted); overflow-wrap: anywhere; }
.checks .check-fail { color: var(--failed); font-weight: 700; }
`;
