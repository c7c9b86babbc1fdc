// The environment of the test workers, the same on every machine (vitest's setupFiles): what a
// developer's shell exports must not change what the tests see. Processes the tests start get
// their own env from tempHome (test/support/cli.ts).
import process from 'node:process';

// A proxy from the shell would send the SDK tests' loopback calls through it (the client honours
// these variables when it is given no env of its own).
for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY']) {
  delete process.env[name];
  delete process.env[name.toLowerCase()];
}
process.env.TZ = 'UTC';
