/**
 * Taro build configuration (started from the @tarojs/cli 4.2.1 default template).
 * `weapp` goes to dist/weapp (a mini-program package), `alipay` to dist/alipay (the same page as an
 * Alipay mini-program), `h5` to dist/h5 (served by the kit server at /mp/, hash router). `@kit/shared` is aliased to its TypeScript source (../shared/src) and compiled
 * by Taro's babel rule like our own sources (its dist/ build is for other projects).
 */
import path from 'node:path';
import { defineConfig, type UserConfigExport } from '@tarojs/cli';
import TsconfigPathsPlugin from 'tsconfig-paths-webpack-plugin';
import type Chain from 'webpack-chain';
import devConfig from './dev';
import prodConfig from './prod';

const sharedSrc = path.resolve(__dirname, '../../shared/src');
/**
 * npm workspaces hoist most Taro packages to the root, but keep React 18 and the React framework
 * plugin here (the root holds another React for other tools). Looking here first gives every
 * module, hoisted or not, the same single React 18.
 */
const ownModules = path.resolve(__dirname, '../node_modules');

/** `chain` is webpack-chain's Config, the type Taro's own `webpackChain` option declares. */
function chainCommon(chain: Chain): void {
  chain.resolve.plugin('tsconfig-paths').use(TsconfigPathsPlugin);
  chain.resolve.modules.clear().add(ownModules).add('node_modules');
}

/**
 * The H5 page's size budget. webpack's default (244 KiB) is for sites on the open internet; this
 * page comes from the merchant's own service and React + Taro alone take most of it (283 KiB,
 * about 90 KiB gzipped, in 2026). A budget of our own keeps the build quiet for a newcomer and
 * still warns if the page grows by half again.
 */
const H5_BUDGET_BYTES = 448 * 1024;

function chainH5(chain: Chain): void {
  chainCommon(chain);
  chain.performance.maxEntrypointSize(H5_BUDGET_BYTES).maxAssetSize(H5_BUDGET_BYTES);
}

export default defineConfig<'webpack5'>(async (merge) => {
  // The platform `taro build --type` names (each wallet's mini-program says its own: src/wallets/); `weapp` by default.
  const platform = process.env.TARO_ENV || 'weapp';
  const baseConfig: UserConfigExport<'webpack5'> = {
    projectName: 'kit-payer',
    date: '2025-1-1',
    designWidth: 750,
    deviceRatio: {
      640: 2.34 / 2,
      750: 1,
      375: 2,
      828: 1.81 / 2,
    },
    sourceRoot: 'src',
    outputRoot: `dist/${platform}`,
    plugins: [],
    defineConstants: {
      // Absolute HTTPS base URL of the kit service for the weapp build (H5 uses its own origin).
      KIT_API_BASE: JSON.stringify(process.env.TARO_APP_API_BASE ?? ''),
    },
    alias: {
      '@kit/shared': sharedSrc,
    },
    copy: {
      patterns: [],
      options: {},
    },
    framework: 'react',
    compiler: 'webpack5',
    cache: {
      enable: false,
    },
    mini: {
      // Taro compiles only src/ by default; the shared TypeScript source must go through babel too.
      compile: { include: [sharedSrc] },
      postcss: {
        pxtransform: { enable: true, config: {} },
        cssModules: { enable: false, config: { namingPattern: 'module', generateScopedName: '[name]__[local]___[hash:base64:5]' } },
      },
      webpackChain: chainCommon,
    },
    h5: {
      compile: { include: [sharedSrc] },
      // Served by the kit server under /mp/ (server/src/frontends/mp). Relative asset URLs let the same
      // build work under any BASE_PATH; TARO_APP_PUBLIC_PATH overrides (e.g. a CDN).
      publicPath: process.env.TARO_APP_PUBLIC_PATH ?? './',
      staticDirectory: 'static',
      router: { mode: 'hash' },
      output: {
        filename: 'js/[name].[contenthash:8].js',
        chunkFilename: 'js/[name].[chunkhash:8].js',
      },
      miniCssExtractPluginOption: {
        ignoreOrder: true,
        filename: 'css/[name].[contenthash].css',
        chunkFilename: 'css/[name].[chunkhash].css',
      },
      postcss: {
        autoprefixer: { enable: true, config: {} },
        cssModules: { enable: false, config: { namingPattern: 'module', generateScopedName: '[name]__[local]___[hash:base64:5]' } },
      },
      webpackChain: chainH5,
    },
  };

  if (process.env.NODE_ENV === 'development') return merge({}, baseConfig, devConfig);
  return merge({}, baseConfig, prodConfig);
});
