import { openApiContract } from '@platform/test-kit';
import { OPENAPI_FILE } from './workspace-files';

const contract = openApiContract(OPENAPI_FILE);

/** docs/openapi.yaml, parsed. */
export const openApiDocument = contract.document;

/** Throws unless a response is what docs/openapi.yaml says it can be (see @platform/test-kit's openApiContract). */
export const assertMatchesContract = contract.assertMatches;
