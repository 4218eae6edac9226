import { expect } from 'chai';
import { connectOutcome } from './service-process';

/** Starts the service's process with these variables; answers its listening line and the port it took. */
export type StartListening = (
  env: Record<string, string | undefined>,
) => Promise<{ readonly line: Record<string, unknown>; readonly port: number }>;

/**
 * Where a service started by the platform listens when HOST is set or tokens are on: the same for every service, so
 * written once. Call inside the service's describe, beside its own case for tokens off and no HOST (its start line).
 */
export function listeningAddressCases(started: StartListening): void {
  it('with tokens off and HOST set: where HOST says, and the start line says every caller that reaches it may do everything', async () => {
    const { line, port } = await started({ HOST: '0.0.0.0' });
    expect(line.access).to.equal(
      'tokens off: every caller that reaches 0.0.0.0 may do everything (set AUTH_ISSUER to check tokens)',
    );
    // The probe of the case for no HOST can tell: an address bound to every interface answers on it.
    expect(await connectOutcome('127.0.0.2', port)).to.equal('connected');
  });

  it('with tokens on and no HOST: on every interface, as before, and nothing about access in the start line', async () => {
    // Tokens are checked against this issuer when a request brings one; nothing needs it to start.
    const { line, port } = await started({ AUTH_ISSUER: 'http://127.0.0.1:1' });
    expect(line).not.to.have.property('access');
    expect(String(line.message)).not.to.contain('tokens off');
    expect(await connectOutcome('127.0.0.2', port)).to.equal('connected');
  });
}
