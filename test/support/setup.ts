import { afterAll } from 'vitest';
import { removeTempRepos } from './temp-repo.js';

// Every test file cleans up the temp repositories it made: tens of thousands of files for the large
// corpora, which a machine busy with other work can take minutes to delete.
afterAll(() => removeTempRepos(), 300_000);
