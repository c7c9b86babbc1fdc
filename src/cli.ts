// Entry point of the CLI (placeholder until the command table lands).
import { Command } from 'commander';
const program = new Command('assetgen').description('Game assets from the asset generation service.');
program.parse();
