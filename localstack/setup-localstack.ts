/**
 * Installs LocalStack into the project (what `.ci/run` and the first LocalStack test need):
 * its Python 3.13 virtualenv, DynamoDB Local from Maven Central and the agent. Prints where it
 * is; exits non-zero with the reason when Python 3.13, Java, Maven or a registry is missing.
 */
import { isLocalStackError } from './errors.js';
import { ensureLocalStack } from './localstack-install.js';

try {
  const install = ensureLocalStack({ log: (line) => console.log(line) });
  console.log(`LocalStack ready: ${install.python} -m localstack.runtime.main (file system ${install.root})`);
} catch (error) {
  if (isLocalStackError(error)) {
    console.error(`error: ${error.message}`);
    process.exit(1);
  }
  throw error;
}
