import { fileURLToPath } from 'node:url';

/**
 * The scenarios file queue-drill ships (`scenarios.yaml` at the package's
 * root), absolute: the same drill `npm run drill` runs, wherever the package
 * is installed. The same relative path works from src/api and dist/api.
 */
export const SHIPPED_SCENARIOS: string = fileURLToPath(new URL('../../scenarios.yaml', import.meta.url));
