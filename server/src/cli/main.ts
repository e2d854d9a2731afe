process.stdout.write("intent: not yet\n");
