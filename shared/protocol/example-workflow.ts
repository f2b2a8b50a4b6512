// The name of the example workflow first run saves (electron/first-run/), which the Workflows
// screen opens on a first visit, as the README promises; one constant, so the two never disagree.

export const EXAMPLE_WORKFLOW_NAME = 'Example - YAML and geo';
