import { afterAll } from 'vitest';
import { removeTempRepos } from './temp-repo.js';

// Every test file cleans up the temp repositories it made.
afterAll(() => removeTempRepos());
