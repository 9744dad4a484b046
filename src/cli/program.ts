/**
 * What the four commands share: `--version`, and a `--help` that ends with the settings the process
 * reads (config key and environment variables), so an operator never needs the source to configure it.
 */
import { Command } from 'commander';
import { describeSettings } from '../config.js';
import { PACKAGE_VERSION } from '../package-root.js';

export interface ProgramSpec {
  readonly name: string;
  readonly description: string;
  /** Dotted key prefixes of the settings this process reads (`api.`, `chains.`, `dataDir`). */
  readonly settings: readonly string[];
}

export function settingsHelp(prefixes: readonly string[]): string {
  const rows = describeSettings().filter((s) => prefixes.some((p) => s.key === p || s.key.startsWith(p)));
  const width = Math.max(...rows.map((r) => r.key.length));
  const lines = rows.map((r) => `  ${r.key.padEnd(width)}  ${r.env.length ? r.env.join(', ') : '(config file only)'}`);
  return ['', 'Settings (config/default.toml, then the TOML file named by ADDRSUM_CONFIG, then environment variables):', ...lines, ''].join(
    '\n',
  );
}

export function newProgram(spec: ProgramSpec): Command {
  return new Command(spec.name)
    .description(spec.description)
    .version(PACKAGE_VERSION, '-V, --version', 'print the version and exit')
    .addHelpText('after', settingsHelp(spec.settings))
    .showHelpAfterError();
}
