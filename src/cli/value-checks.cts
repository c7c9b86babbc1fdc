// The checks behind two option parsers of ./values.cts that commands also run on text they read
// themselves (the installer's prompt, the gallery's output name). Apart from values.cts, which
// imports commander for its usage error: an ES module command that imports a check from there
// loads a second copy of commander from node_modules beside the one bundled in dist/program.cjs.

/** Why a base URL is not one (a full http(s) URL), or undefined when it is. Shared by --base-url and the installer's prompt. */
export function baseUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return 'Use a full URL such as https://assets.example.com.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `Use an http(s) URL, not ${url.protocol}`;
  return undefined;
}

/** Why a path is not the file of an HTML report (it must end in .html or .htm, so a slip never overwrites the lock or an asset), or undefined. */
export function htmlPathProblem(text: string): string | undefined {
  return !/\.html?$/i.test(text.trim()) || /[\\/]$/.test(text) ? 'Name an .html file, e.g. report.html.' : undefined;
}
