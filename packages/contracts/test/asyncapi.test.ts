import { Parser } from '@asyncapi/parser';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { decodeEvent, EVENT_TYPES, EVENTS, eventTypesConsumedBy } from '../src';
import { acceptedSamples, refusedSamples } from './samples';

const FILE = join(import.meta.dirname, '..', '..', '..', 'docs', 'asyncapi.yaml');
const text = readFileSync(FILE, 'utf8');

type Ref = { $ref: string };
interface Channel {
  address: string;
  messages: Record<string, Ref>;
  bindings: Ref | { amqp: { is: string; exchange?: { name: string; type: string }; queue?: { name: string } } };
}
interface Message {
  name: string;
  'x-version': number;
  payload: unknown;
}
interface Operation {
  action: 'send' | 'receive';
  channel: Ref;
  messages: Ref[];
  tags: { name: string }[];
}
interface Document {
  channels: Record<string, Channel>;
  operations: Record<string, Operation>;
  components: { messages: Record<string, Message>; channelBindings: Record<string, Channel['bindings']> };
}

const document = parse(text) as Document;

/** Follows local `$ref`s inside the document, through references to references. */
function resolve<T>(value: T | Ref): T {
  if (!value || typeof value !== 'object' || !('$ref' in value)) return value;
  const target = value.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>(
      (node, key) => (node as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')],
      document,
    );
  return resolve(target as T | Ref);
}

const amqp = (channel: Channel) => resolve(channel.bindings).amqp;
const routingKeyChannels = Object.entries(document.channels).filter(([, channel]) => amqp(channel).is === 'routingKey');
const channelOf = (type: string) => routingKeyChannels.find(([, channel]) => channel.address === type);
const messageNames = (channel: Channel) => Object.values(channel.messages).map((ref) => resolve<Message>(ref).name);

describe('docs/asyncapi.yaml', () => {
  it('is a valid AsyncAPI 3.0 document: the official parser finds no error and no warning', async () => {
    const { document: parsed, diagnostics } = await new Parser().parse(text);
    // Severity 0 is an error, 1 a warning; 2 and 3 are hints such as "3.1.0 exists". A number: the parser's enum and
    // the one it exports come from two versions of @stoplight/types, which TypeScript holds apart.
    const problems = diagnostics
      .filter((diagnostic) => Number(diagnostic.severity) <= 1)
      .map((d) => `${d.path.join('.')}: ${d.message}`);
    expect(problems).to.deep.equal([]);
    expect(parsed?.version()).to.equal('3.0.0');
  });

  it('describes every event type of the code, and no other, each a routing key on the topic exchange commerce.events', () => {
    expect(routingKeyChannels.map(([, channel]) => channel.address).sort()).to.deep.equal([...EVENT_TYPES].sort());
    for (const [, channel] of routingKeyChannels)
      expect(amqp(channel).exchange).to.include({ name: 'commerce.events', type: 'topic' });
  });

  for (const type of EVENT_TYPES) {
    describe(type, () => {
      const found = channelOf(type);
      const message = () => resolve<Message>(Object.values(found![1].messages)[0]!);
      let validate: ValidateFunction;
      before(() => {
        expect(found, `a channel whose address is ${type}`).to.not.equal(undefined);
        const ajv = new Ajv({ allErrors: true, strictSchema: false });
        addFormats(ajv);
        validate = ajv.compile({ ...(message().payload as object), components: document.components });
      });

      it('is one message named by its type, at the code’s version', () => {
        expect(Object.keys(found![1].messages)).to.have.length(1);
        expect(message().name).to.equal(type);
        expect(message()['x-version']).to.equal(EVENTS[type].version);
      });

      it('is sent by its publisher and received from the queue of each of its consumers', () => {
        const operations = Object.values(document.operations);
        const sends = operations.filter(
          (operation) => operation.action === 'send' && operation.channel.$ref === `#/channels/${found![0]}`,
        );
        expect(sends.map((operation) => operation.tags.map((tag) => tag.name))).to.deep.equal([
          [EVENTS[type].publisher],
        ]);
        for (const consumer of EVENTS[type].consumers) {
          const receive = operations.find(
            (operation) => operation.action === 'receive' && operation.tags.some((tag) => tag.name === consumer),
          );
          expect(receive, `${consumer} receives`).to.not.equal(undefined);
          const queue = resolve<Channel>(receive!.channel);
          expect(amqp(queue).queue?.name).to.equal(consumer);
          expect(receive!.messages.map((ref) => resolve<Message>(ref).name)).to.include(type);
        }
      });

      it('has a payload schema that accepts what the codec accepts', () => {
        for (const { label, message: sample } of acceptedSamples(type)) {
          expect(decodeEvent(sample).ok, `codec: ${label}`).to.equal(true);
          expect(validate(sample), `schema: ${label} ${JSON.stringify(validate.errors)}`).to.equal(true);
        }
      });

      it('has a payload schema that refuses what the codec refuses', () => {
        for (const { label, message: sample } of refusedSamples(type)) {
          expect(decodeEvent(sample).ok, `codec: ${label}`).to.equal(false);
          expect(validate(sample), `schema: ${label}`).to.equal(false);
        }
      });
    });
  }

  it('binds each service’s queue to exactly the events the code says it consumes, with a dead-letter queue beside it', () => {
    for (const service of ['stock-service', 'sales-service']) {
      const queues = Object.values(document.channels).filter((channel) => amqp(channel).is === 'queue');
      const queue = queues.find((channel) => amqp(channel).queue?.name === service);
      const deadLetter = queues.find((channel) => amqp(channel).queue?.name === `${service}.dead-letter`);
      expect(messageNames(queue!)).to.deep.equal(eventTypesConsumedBy(service));
      expect(messageNames(deadLetter!)).to.deep.equal(eventTypesConsumedBy(service));
    }
  });
});
