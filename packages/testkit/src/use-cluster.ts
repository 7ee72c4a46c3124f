/**
 * Imported first by a test file that runs another file's suite on a Redis Cluster: the stacks that
 * suite starts (startStack, startLocalStack) see STARPOST_TEST_REDIS=cluster. Each test file runs
 * in its own process, so this reaches no other file.
 */
process.env.STARPOST_TEST_REDIS = "cluster";
