// The README blocks that need a stack, run on the one stack.e2e / cluster.e2e has up rather than on one of their own.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@restbus/infra/testing';
import type { ClusterStack } from './cluster-stack';
import { E2E_TAG, isStandaloneCompose, type ComposeStack } from './compose-stack';
import {
  RULES,
  createRecipeContext,
  isRunRule,
  runRule,
  summarizeRun,
  type RecipeContext,
  type Where,
} from './readme-recipes';

interface StackPorts {
  projectName: string;
  /** The cluster stack's project name stands for the README's `restbus-cluster`. */
  clusterProject?: string;
  /**
   * The README's host ports (3007 the gateway, 3008 the mock server, 3009 and 3010 the profile `auth`'s gateway and
   * issuer) and where this stack publishes each.
   */
  ports: Array<[readme: number, published: number]>;
  /** Builds what the blocks run beyond the stack (the tool image). */
  prepare?(): Promise<unknown>;
}

const portOf = (url: string): number => Number(new URL(url).port);

function describeOnStack(where: Where, stackOf: () => StackPorts): void {
  describe(`the README blocks on the ${where}`, () => {
    let work: string;
    let ctx: RecipeContext;

    beforeAll(async () => {
      const stack = stackOf();
      await stack.prepare?.();
      work = await mkdtemp(join(tmpdir(), 'restbus-readme-stack-'));
      // The tool container's projects are served on 3017 (`create demo --port 3017`): a free port here.
      const ports = new Map([...stack.ports, [3017, await freePort()]]);
      ctx = await createRecipeContext({
        work,
        ports,
        standaloneCompose: isStandaloneCompose(),
        clusterProject: stack.clusterProject,
        env: {
          ...process.env,
          // The images this stack was built with, under its project name: no second build.
          COMPOSE_PROJECT_NAME: stack.projectName,
          RESTBUS_TAG: E2E_TAG,
        },
      });
    });

    afterAll(async () => {
      if (work) await rm(work, { recursive: true, force: true });
    });

    for (const rule of RULES.filter(isRunRule).filter((one) => one.runs === where)) {
      it(`${rule.readme}: ${rule.does}`, async () => {
        const run = await runRule(rule, ctx);
        process.stdout.write(`readme, on the ${where}: ${summarizeRun(run)}\n`);
      }, 300_000);
    }
  });
}

/** The README blocks that run on the single-node stack: call inside the describe that has it up. */
export function describeReadmeRecipesOnComposeStack(stackOf: () => ComposeStack): void {
  describeOnStack('compose stack', () => {
    const stack = stackOf();
    return {
      projectName: stack.projectName,
      ports: [
        [3007, portOf(stack.gatewayUrl)],
        [3008, portOf(stack.mockUrl)],
        [3009, portOf(stack.securedGatewayUrl)],
        [3010, portOf(stack.issuerUrl)],
      ],
      prepare: () => stack.compose(['--profile', 'tool', 'build', 'tool']),
    };
  });
}

/** The README blocks that run on the cluster stack: call inside the describe that has it up. */
export function describeReadmeRecipesOnClusterStack(stackOf: () => ClusterStack): void {
  describeOnStack('cluster stack', () => {
    const stack = stackOf();
    return {
      projectName: stack.projectName,
      clusterProject: stack.projectName,
      ports: [[3007, portOf(stack.lbUrl)]],
    };
  });
}
