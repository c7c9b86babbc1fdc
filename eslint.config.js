// Lint of src/: typescript-eslint's type-aware recommended rules, plus the layering of the
// architecture (README "Layout"): the SDK (client/), the shared facts (api/) and the mock know
// nothing of the CLI, its kit, the terminal or the config store. Everything else (tests, bench,
// scripts, bin, these configs) is linted by Biome (biome.json: the same recommended rules of ESLint
// and typescript-eslint, without types), which does it in a second where ESLint took ten.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const cliOnly = (name) => [
  { group: ['**/cli/**', '**/cli.cjs', '**/cli.cts'], message: `${name} must not import the CLI kit.` },
  { group: ['**/commands/**'], message: `${name} must not import commands.` },
  { group: ['**/ui/**'], message: `${name} must not import the terminal UI.` },
  { group: ['**/config/**'], message: `${name} must not import the config store.` },
  { group: ['**/installer/**'], message: `${name} must not import the installer.` },
];
const terminalPackages = ['commander', 'chalk', 'ora', 'conf', '@inquirer/prompts'].map((name) => ({
  name,
  message: 'Terminal and config packages belong to the CLI.',
}));

export default tseslint.config(
  { ignores: ['**', '!src/', '!src/**'] },
  js.configs.recommended,
  { plugins: { '@typescript-eslint': tseslint.plugin }, languageOptions: { parser: tseslint.parser } },
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: ['src/**/*.ts', 'src/**/*.cts'] })),
  {
    files: ['src/**/*.ts', 'src/**/*.cts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // Lenient reading of untrusted JSON is the client's job; `unknown` is used there, not `any`.
      '@typescript-eslint/no-explicit-any': 'error',
      // Commands and msw resolvers are async by contract, whether or not a given one awaits.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['src/client/**', 'src/mock/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: cliOnly('The SDK and the mock'), paths: terminalPackages }] },
  },
  {
    // The confinement rule and the media allow-list: used by the CLI, the build, the MCP server and
    // the installer alike, so they know none of them.
    files: ['src/files/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...cliOnly('src/files'),
            { group: ['**/mock/**', '**/pipeline/**', '**/mcp/**'], message: 'src/files is shared: it imports none of its users.' },
          ],
          paths: terminalPackages,
        },
      ],
    },
  },
  {
    // Image processing (post steps, atlases): pure functions over bytes, used by the build; they print
    // nothing and know none of their users.
    files: ['src/imaging/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...cliOnly('src/imaging'),
            { group: ['**/mock/**', '**/pipeline/**', '**/mcp/**', '**/client/**'], message: 'src/imaging imports none of its users.' },
          ],
          paths: terminalPackages,
        },
      ],
    },
  },
  {
    files: ['src/api/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../*', './*/**'], message: 'api/ holds plain facts and imports nothing.' }] },
      ],
    },
  },
  {
    files: ['src/installer/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...cliOnly('The installer').filter((p) => !p.group[0].includes('config')),
            { group: ['**/mock/**'], message: 'The installer must not import the mock.' },
          ],
        },
      ],
    },
  },
  {
    // The build pipeline (manifest, lock, plan) prints nothing: commands render. It has its own
    // errors (PipelineError: exit 2 like any other bad input) and imports nothing of the CLI.
    files: ['src/pipeline/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [...cliOnly('The build pipeline'), { group: ['**/mock/**'], message: 'The build modules must not import the mock.' }],
          paths: terminalPackages,
        },
      ],
    },
  },
  {
    // The config store (credentials, the job journal, paths) is read by the kit, the installer and
    // the MCP server alike: it knows none of them, nor the terminal.
    files: ['src/config/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...cliOnly('The config store').filter((p) => !p.group[0].includes('config')),
            { group: ['**/mock/**', '**/pipeline/**', '**/mcp/**'], message: 'The config store imports none of its users.' },
          ],
          paths: terminalPackages.filter((p) => p.name !== 'conf'),
        },
      ],
    },
  },
  {
    // The CLI kit (context, saving, reports, prompts) serves the commands and front ends built on it:
    // it never imports them.
    files: ['src/cli/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/commands/**'], message: 'The CLI kit must not import commands.' },
            { group: ['**/mcp/**', '**/installer/**'], message: 'The CLI kit must not import the front ends built on it.' },
            {
              group: ['**/pipeline/**', '!**/pipeline/errors.js'],
              message: "The CLI kit knows only the pipeline's errors (for exit codes).",
            },
            { group: ['**/mock/**'], message: 'The CLI kit must not import the mock.' },
          ],
        },
      ],
    },
  },
  {
    // Once the densest code of the build (issue 26): split into named steps, each under 80 lines.
    files: ['src/commands/project/asset.ts', 'src/commands/project/pool.ts', 'src/pipeline/validate.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 79 }] },
  },
);
