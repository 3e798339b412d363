from vae.trainer import main

if __name__ == "__main__":
    main()
