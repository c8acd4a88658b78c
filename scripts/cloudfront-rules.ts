// The CloudFront Functions JavaScript runtime 2.0 ("cloudfront-js-2.0") rules, checked on the built bundle with a real
// parser (acorn). The sandbox test runs the bundle in Node's V8, which accepts far more than CloudFront's own engine:
// this check refuses, before deploy, every construct the runtime's documentation lists as unsupported or leaves out of
// its list of supported features. Each rule quotes the documentation it enforces:
//   [runtime] "JavaScript runtime 2.0 features for CloudFront Functions",
//             https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-javascript-runtime-20.html
//   [kvs]     "Helper methods for key value stores",
//             https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-custom-methods.html
//   [quotas]  "Quotas" > "Quotas on CloudFront Functions",
//             https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/cloudfront-limits.html
// (read 2026-11-24). A build tool, not part of the bundle: scripts/build-edge.ts runs it on every build and `--check`.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import * as acorn from 'acorn';

/** [quotas] "Maximum function size … 10 KB … This quota isn't adjustable." */
export const MAX_FUNCTION_BYTES = 10_240;

export interface RuleViolation {
  rule: string;
  message: string;
  line: number;
  column: number;
}

type AnyNode = acorn.AnyNode;

/**
 * ES 5.1 syntax plus what [runtime] lists from later editions. Every other node type (classes, generators' yield,
 * destructuring, spread, for-of, optional chaining, default parameters, tagged templates, dynamic import, ...) is
 * outside the runtime's level: "The CloudFront Functions JavaScript runtime environment is compliant with ECMAScript
 * (ES) version 5.1 and also supports some features of ES versions 6 through 12 … The following topics list all
 * supported features in this runtime."
 */
const ALLOWED_NODES = new Set<string>([
  // ES 5.1: "All ES 5.1 types are supported", "All ES 5.1 operators are supported", the ES 5.1 statements listed
  // (break, catch, continue, do-while, else, finally, for, for-in, if, label, return, switch, throw, try, var, while),
  // "All ES 5.1 function features are supported".
  'Program',
  'ExpressionStatement',
  'BlockStatement',
  'EmptyStatement',
  'ReturnStatement',
  'LabeledStatement',
  'BreakStatement',
  'ContinueStatement',
  'IfStatement',
  'SwitchStatement',
  'SwitchCase',
  'ThrowStatement',
  'TryStatement',
  'CatchClause',
  'WhileStatement',
  'DoWhileStatement',
  'ForStatement',
  'ForInStatement',
  'FunctionDeclaration',
  'VariableDeclaration',
  'VariableDeclarator',
  'ThisExpression',
  'ArrayExpression',
  'ObjectExpression',
  'Property',
  'FunctionExpression',
  'UnaryExpression',
  'UpdateExpression',
  'BinaryExpression',
  'AssignmentExpression',
  'LogicalExpression',
  'MemberExpression',
  'ConditionalExpression',
  'CallExpression',
  'NewExpression',
  'SequenceExpression',
  'Identifier',
  'Literal',
  // "ES 6 arrow functions are supported, and ES 6 rest parameter syntax is supported."
  'ArrowFunctionExpression',
  'RestElement',
  // "ES 6 template literals are supported: multiline strings, expression interpolation, and nesting templates."
  'TemplateLiteral',
  'TemplateElement',
  // "The following ES 8 statements are supported: async, await" (where, see the async rule below).
  'AwaitExpression',
  // [kvs] "include the following statements in the first lines of the function code: import cf from 'cloudfront';"
  'ImportDeclaration',
  'ImportDefaultSpecifier',
]);

/** ES 5.1 assignment operators, and none of the later compound ones (`**=`, `&&=`, `||=`, `??=`), which [runtime] does not list. */
const ES5_ASSIGNMENT = new Set(['=', '+=', '-=', '*=', '/=', '%=', '<<=', '>>=', '>>>=', '&=', '^=', '|=']);
/** [runtime] lists the ES 5.1 regular expression features and `RegExp.prototype.sticky`; no `u`, `s`, `d` or `v` flag. */
const REGEXP_FLAGS = /^[gimy]*$/;
/** [runtime] "Restricted features": "The setTimeout(), setImmediate(), and clearTimeout() functions are not supported." */
const TIMERS = new Set(['setTimeout', 'setImmediate', 'clearTimeout']);
const NO_NETWORK = '"There is no support for network calls. For example, XHR, HTTP(S), and socket are not supported."';
/** [runtime] "There is no process access. For example, there is no process global object", and no network. */
const NO_SUCH_GLOBALS = new Map<string, string>([
  ['process', '"There is no process access. For example, there is no process global object"'],
  ['fetch', NO_NETWORK],
  ['XMLHttpRequest', NO_NETWORK],
  ['WebSocket', NO_NETWORK],
]);
/** [runtime] "Built-in modules": "You can load the module using require('querystring')" / "require('crypto')". */
const REQUIRABLE = new Set(['querystring', 'crypto']);
const OPERATORS = 'operators ("All ES 5.1 operators" and `**`)';

type FunctionNode = acorn.FunctionDeclaration | acorn.FunctionExpression | acorn.ArrowFunctionExpression;

function isFunction(node: AnyNode): node is FunctionNode {
  return (
    node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression'
  );
}

const isNode = (v: unknown): v is AnyNode =>
  v !== null && typeof v === 'object' && typeof (v as { type?: unknown }).type === 'string';

/** The node's child nodes, in source order (`loc` and positions are not nodes). */
export function childrenOf(node: AnyNode): AnyNode[] {
  return Object.values(node).flatMap((v: unknown) => (Array.isArray(v) ? v.filter(isNode) : isNode(v) ? [v] : []));
}

/**
 * Every way `code` breaks the documented cloudfront-js-2.0 rules; empty when it keeps them all. `code` is the whole
 * function source as CloudFront receives it (the committed edge/cloudfront-function.js).
 */
export function checkCloudFrontFunction(code: string): RuleViolation[] {
  const out: RuleViolation[] = [];
  const add = (rule: string, message: string, node: { loc?: acorn.SourceLocation | null } | null) =>
    out.push({ rule, message, line: node?.loc?.start.line ?? 1, column: (node?.loc?.start.column ?? 0) + 1 });
  /** Syntax the [runtime] feature lists leave out: "`what` (with its verb) not among the supported `among`". */
  const unlisted = (what: string, among: string, node: AnyNode) =>
    add('es-level', `${what} not among the supported ${among}`, node);

  // [quotas] "Maximum function size … 10 KB. This quota isn't adjustable."
  const bytes = Buffer.byteLength(code, 'utf8');
  if (bytes > MAX_FUNCTION_BYTES)
    add('size', `${bytes} bytes, over the ${MAX_FUNCTION_BYTES}-byte (10 KB) "Maximum function size"`, null);

  let program: acorn.Program;
  try {
    // Module goal: the runtime import is module syntax, and a module is strict, as the runtime is: "Functions operate
    // in strict mode by default … This cannot be changed." (so `with`, octal literals and the like fail to parse).
    program = acorn.parse(code, { ecmaVersion: 'latest', sourceType: 'module', locations: true });
  } catch (err) {
    const e = err as SyntaxError & { loc?: { line: number; column: number } };
    out.push({
      rule: 'syntax',
      message: `does not parse as strict ECMAScript: ${e.message}`,
      line: e.loc?.line ?? 1,
      column: (e.loc?.column ?? 0) + 1,
    });
    return out;
  }

  // CloudFront calls the top-level function named `handler` ("async function handler(event)" in [runtime]'s example).
  const handlers = program.body.filter(
    (s): s is acorn.FunctionDeclaration => s.type === 'FunctionDeclaration' && s.id !== null && s.id.name === 'handler',
  );
  const handler = handlers.length === 1 ? handlers[0]! : null;
  if (handler === null)
    add('handler', `needs exactly one top-level \`function handler(event)\`, found ${handlers.length}`, null);
  else if (handler.params.length !== 1 || handler.params[0]!.type !== 'Identifier')
    add('handler', '`handler` takes exactly one parameter, the event', handler);

  const visit = (node: AnyNode, parent: AnyNode | null, fn: FunctionNode | null): void => {
    if (!ALLOWED_NODES.has(node.type)) {
      add('es-level', `${node.type} is outside the runtime's ES level (ES 5.1 plus the later features it lists)`, node);
    }
    switch (node.type) {
      case 'ImportDeclaration':
        // [kvs] "include the following statements in the first lines of the function code: import cf from
        // 'cloudfront';": the one module the runtime provides by import, as a default import, first.
        if (node.source.value !== 'cloudfront')
          add(
            'import',
            `imports ${JSON.stringify(node.source.value)}; the only module a function imports is 'cloudfront'`,
            node,
          );
        else if (node.specifiers.length !== 1 || node.specifiers[0]!.type !== 'ImportDefaultSpecifier')
          add('import', "imports 'cloudfront' other than as `import cf from 'cloudfront'`", node);
        if (program.body[0] !== node)
          add('import', "the 'cloudfront' import belongs on the first lines of the function code", node);
        break;
      case 'ImportExpression':
        add('import', "dynamic import(): the only module a function imports is 'cloudfront', statically", node);
        break;
      case 'VariableDeclaration':
        // "The following ES 6 statements are supported: const, let" (and ES 5.1 var); nothing newer (`using`).
        if (node.kind !== 'var' && node.kind !== 'let' && node.kind !== 'const')
          unlisted(`\`${node.kind}\` declarations are`, 'statements', node);
        break;
      case 'Property':
        // ES 5.1 object literals: plain and get/set properties; the ES 6 shorthand, method and computed forms are not listed.
        if (node.shorthand || node.method || node.computed)
          unlisted('ES 6 object literal shorthand, method or computed key is', 'features', node);
        break;
      case 'LogicalExpression':
        if (node.operator === '??') unlisted('`??` (ES 2020) is', OPERATORS, node);
        break;
      case 'AssignmentExpression':
        if (!ES5_ASSIGNMENT.has(node.operator)) unlisted(`\`${node.operator}\` is`, OPERATORS, node);
        break;
      case 'Literal':
        if ('bigint' in node && node.bigint !== undefined)
          unlisted('BigInt literals are', 'types ("All ES 5.1 types")', node);
        if ('regex' in node && node.regex !== undefined && !REGEXP_FLAGS.test(node.regex.flags))
          add('es-level', `regular expression flags "${node.regex.flags}" beyond the ES 5.1 ones and sticky`, node);
        break;
      case 'CatchClause':
        if (node.param === null) unlisted('optional catch binding (ES 2019) is', 'features', node);
        break;
      case 'RestElement':
        // "ES 6 rest parameter syntax is supported": as a function's last parameter, not in destructuring.
        if (parent === null || !isFunction(parent))
          add('es-level', 'rest elements outside a parameter list (destructuring) are not supported', node);
        break;
      case 'AwaitExpression':
        // "await can be used inside async functions only. async arguments and closures are not supported." The one
        // async function is the handler, so every await sits directly in its body.
        if (fn === null || fn !== handler)
          add(
            'await',
            '`await` outside the body of the top-level `async function handler`: "await can be used inside async functions only. async arguments and closures are not supported."',
            node,
          );
        break;
      case 'CallExpression':
      case 'NewExpression': {
        const callee = node.callee;
        // "Dynamic code evaluation is not supported. Both eval() and Function constructors throw an error if attempted."
        if (callee.type === 'Identifier' && (callee.name === 'eval' || callee.name === 'Function'))
          add('dynamic-code', `${callee.name}(): "Dynamic code evaluation is not supported."`, node);
        if (node.type === 'CallExpression' && callee.type === 'Identifier' && callee.name === 'require') {
          const arg = node.arguments[0];
          const name = arg !== undefined && arg.type === 'Literal' && typeof arg.value === 'string' ? arg.value : null;
          if (node.arguments.length !== 1 || name === null || !REQUIRABLE.has(name))
            add(
              'import',
              `require(${name === null ? '…' : JSON.stringify(name)}): the built-in modules are querystring and crypto (no fs: "There is no file system access")`,
              node,
            );
        }
        // Console: "It only supports the log() method" and "CloudFront Functions doesn't support comma syntax, such as console.log('a', 'b')".
        if (
          callee.type === 'MemberExpression' &&
          callee.object.type === 'Identifier' &&
          callee.object.name === 'console' &&
          node.type === 'CallExpression' &&
          node.arguments.length > 1
        ) {
          add(
            'console',
            'console.log with several arguments: "CloudFront Functions doesn\'t support comma syntax"',
            node,
          );
        }
        break;
      }
      case 'MemberExpression':
        if (
          node.object.type === 'Identifier' &&
          node.object.name === 'console' &&
          !node.computed &&
          node.property.type === 'Identifier' &&
          node.property.name !== 'log'
        ) {
          add('console', `console.${node.property.name}: the console "only supports the log() method"`, node);
        }
        break;
      case 'Identifier':
        if (TIMERS.has(node.name))
          add(
            'timers',
            `${node.name}: "The setTimeout(), setImmediate(), and clearTimeout() functions are not supported."`,
            node,
          );
        if (NO_SUCH_GLOBALS.has(node.name)) add('globals', `${node.name}: ${NO_SUCH_GLOBALS.get(node.name)}`, node);
        break;
      default:
        break;
    }
    if (isFunction(node)) {
      // "await can be used inside async functions only. async arguments and closures are not supported.": the only
      // async function is the top-level handler; no async function expression, arrow, method or nested declaration.
      if (node.async && node !== handler) {
        add(
          'async',
          `an async ${node.type === 'ArrowFunctionExpression' ? 'arrow' : 'function'} other than the top-level \`handler\`: "async arguments and closures are not supported."`,
          node,
        );
      }
      if (node.generator) unlisted('generators are', 'features', node);
    }
    const inner = isFunction(node) ? node : fn;
    for (const child of childrenOf(node)) {
      // Names that are not references: a non-computed member property or object key (`a.process`, `{fetch: 1}`).
      if (node.type === 'MemberExpression' && child === node.property && !node.computed) continue;
      if (node.type === 'Property' && child === node.key && !node.computed) continue;
      visit(child, node, inner);
    }
  };
  visit(program, null, null);
  return out.sort((a, b) => a.line - b.line || a.column - b.column);
}

export function formatViolation(file: string, v: RuleViolation): string {
  return `${file}:${v.line}:${v.column}: [${v.rule}] ${v.message}`;
}

//   tsx scripts/cloudfront-rules.ts FILE...    exit 1 and list each broken rule when a file breaks one
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const files = process.argv.slice(2);
  let failed = 0;
  for (const file of files) {
    const found = checkCloudFrontFunction(readFileSync(file, 'utf8'));
    for (const v of found) console.error(formatViolation(file, v));
    if (found.length > 0) failed++;
    else console.log(`${file}: keeps the cloudfront-js-2.0 rules`);
  }
  process.exitCode = files.length === 0 ? 2 : failed > 0 ? 1 : 0;
}
