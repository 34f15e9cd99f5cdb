import type { Plan } from '../saga/plan.js';
import { PLAN_LIBRARY } from '../scenarios/plan-library.js';

/** The library's plans an explored schedule draws its jobs from, in the order draws index them: every kind of step the world has. */
const EXPLORED = ['write-file', 'send-email', 'charge', 'write-then-email', 'three-step', 'release', 'publish-then-email'] as const;

/** The plans an explored schedule draws its jobs from, by name (the library's: src/scenarios/plan-library.ts). */
export const EXPLORE_PLANS: Readonly<Record<string, Plan>> = Object.fromEntries(EXPLORED.map((name) => [name, PLAN_LIBRARY[name]!]));

export type ExplorePlanName = (typeof EXPLORED)[number];
