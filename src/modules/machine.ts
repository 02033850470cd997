// A lifecycle as a state machine: its states, and the named transitions between them. A service
// applies a transition as one conditional update (`where status in from`), so two racing
// changes cannot both apply; an illegal one is a 409 that names the state (refusal: a message
// key and its values, put into words when the answer leaves). Each
// lifecycle's machine lives in its module's states.ts; docs/lifecycles.md shows them as tables
// (test/machines.test.ts keeps the two equal).
import { inArray, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { type Text, text } from '../contract/i18n.ts';

export interface Transition<S extends string, A extends string = string> {
  from: readonly S[];
  to: S;
  /** Who may make it, where a person decides (the order's buyer or seller, an admin, the jobs). */
  by?: readonly A[];
  /** How the default refusal names the change: "can be <past>" (default: the state it leads to). */
  past?: string;
}

export interface MachineDefinition<S extends string, T extends string, A extends string> {
  /** The thing whose life it is, as a person says it ("order", "return"). */
  name: string;
  states: readonly S[];
  transitions: Record<T, Transition<S, A>>;
  /** A clearer refusal than the default for some (transition, state) pairs: a catalogue message. */
  refusal?: (transition: T, status: S) => Text | undefined;
}

export function defineMachine<S extends string, const T extends string, A extends string = never>(
  definition: MachineDefinition<S, T, A>,
) {
  const { name, states, transitions } = definition;
  for (const [t, { from, to }] of Object.entries<Transition<S, A>>(transitions)) {
    for (const s of [...from, to]) {
      if (!states.includes(s)) throw new Error(`${name} machine: ${t} names an unknown state ${s}`);
    }
  }
  return {
    name,
    states,
    transitions,
    /** The state a transition leads to. */
    to: (t: T): S => transitions[t].to,
    /** Whether `actor` may make the transition (one without `by` is the service's own). */
    allows: (t: T, actor: A): boolean => transitions[t].by?.includes(actor) ?? true,
    /** The condition of the transition's update: the row is in one of its `from` states. */
    where: (t: T, column: PgColumn): SQL => inArray(column, [...transitions[t].from]),
    /** Why a transition does not apply to a thing in `status` (the 409's message key and values). */
    refusal(t: T, status: S): Text {
      const own = definition.refusal?.(t, status);
      if (own) return own;
      const { from, to, past } = transitions[t];
      return text('error.machine.wrongState', {
        machine: name,
        from: from.join(', '),
        to: past ?? to,
        status,
        vowel: /^[aeiou]/.test(from[0] ?? '') ? 'yes' : 'no',
      });
    },
    /** The machine as a markdown table: transition, from, to, who (docs/lifecycles.md). */
    table(): string {
      const rows = Object.entries<Transition<S, A>>(transitions).map(
        ([t, { from, to, by }]) =>
          `| ${t} | ${from.join(', ')} | ${to} | ${by ? by.join(', ') : 'the service'} |`,
      );
      return ['| transition | from | to | by |', '| --- | --- | --- | --- |', ...rows].join('\n');
    },
  };
}
