/**
 * The environment variables that set one setting, for messages that tell an operator what to change.
 * Taken from the configuration's own bindings, so a message never names a variable the code does not read.
 */
import { describeSettings } from './config.js';

/** `chains.LTC.metricsPort` → ADDRSUM_LTC_METRICS_PORT, ADDRSUM_METRICS_PORT: the one that wins first. */
export function variablesFor(setting: string): string[] {
  // Later bindings win (config.ts ENV_BINDINGS): the most specific comes last there.
  return [...(describeSettings().find((s) => s.key === setting)?.env ?? [])].reverse();
}

/** `chains.LTC.network (ADDRSUM_LTC_NETWORK)`: the setting with the variables that set it, for messages. */
export function settingWithVariables(setting: string): string {
  const variables = variablesFor(setting);
  return variables.length > 0 ? `${setting} (${variables.join(' or ')})` : setting;
}
