#!/usr/bin/env node
import { exitCodeOf, guardStandardStreams, main } from '../lib/cli/main.js';

guardStandardStreams();
process.exitCode = exitCodeOf(await main(process.argv.slice(2)));
// Done: leave now rather than after whatever the runtime would still do idly (a garbage collection task, closing a
// module file it read), unless a write to stdout or stderr is still on its way (an asynchronous pipe).
if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit();
