// The CloudFront Functions runtime's module, as the function uses it (runtime 2.0, with a KeyValueStore associated).
declare module 'cloudfront' {
  interface KeyValueStoreHandle {
    get(key: string, options?: { format?: 'string' }): Promise<string>;
    exists(key: string): Promise<boolean>;
  }
  const cf: { kvs(id?: string): KeyValueStoreHandle };
  export default cf;
}
