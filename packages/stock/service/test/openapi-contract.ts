import { openApiContract } from '@platform/test-kit';
import { DEFAULT_CONFIG } from '../src';

const contract = openApiContract(DEFAULT_CONFIG.openApiFile);

/** docs/openapi.yaml, parsed. */
export const openApiDocument = contract.document;

/** Throws unless a response is what docs/openapi.yaml says it can be (see @platform/test-kit's openApiContract). */
export const assertMatchesContract = contract.assertMatches;
