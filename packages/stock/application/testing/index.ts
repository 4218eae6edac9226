export * from './changes-at-once-contract';
