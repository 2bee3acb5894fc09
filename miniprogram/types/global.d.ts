/// <reference types="@tarojs/taro" />

declare module '*.png';
declare module '*.css';

declare namespace NodeJS {
  interface ProcessEnv {
    NODE_ENV: 'development' | 'production' | 'test';
    /** The platform being built. */
    TARO_ENV: 'weapp' | 'h5' | string;
    /** Mini-program appid (Taro writes it into dist/weapp/project.config.json). */
    TARO_APP_ID: string;
    /** Absolute HTTPS base URL of the kit service, for the weapp build (H5 derives it from its own URL). */
    TARO_APP_API_BASE?: string;
  }
}
