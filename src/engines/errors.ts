// An engine project that `assetgen init --engine` cannot set up as asked (no project file, an
// older engine, a file not in the form the engine writes): bad input found before anything was
// written, so exit 2 like the pipeline's own (src/cli/exit-codes.ts maps PipelineError).
import { PipelineError } from '../pipeline/errors.js';

export class EngineSetupError extends PipelineError {}
